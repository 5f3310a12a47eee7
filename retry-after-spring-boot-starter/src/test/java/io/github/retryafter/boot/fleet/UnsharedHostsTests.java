package io.github.retryafter.boot.fleet;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recorder of the hosts a fleet does not share, on its own: its bound holds under concurrent reports, and it
 * records nothing when {@code default} is shared.
 */
class UnsharedHostsTests {

	@Test
	void concurrentReportsNeverListMoreThanTheBoundAndCountTheRest() throws Exception {
		UnsharedHosts unshared = new UnsharedHosts("redis", 10, true);
		CompletableFuture<?>[] reporters = IntStream.range(0, 4)
			.mapToObj((thread) -> CompletableFuture.runAsync(() -> {
				for (int i = 0; i < 100; i++) {
					// every thread reports every host: each is listed once or counted once per report
					unshared.unmatched("host-" + i + ".example");
				}
			}))
			.toArray(CompletableFuture<?>[]::new);
		CompletableFuture.allOf(reporters).get(10, TimeUnit.SECONDS);

		assertThat(unshared.hosts()).hasSize(10).allSatisfy((host) -> assertThat(host).startsWith("host-"));
		assertThat(unshared.notListed()).isBetween(90L, 4 * 100L - 10);
	}

	@Test
	void aHostIsListedOnceAndCutToADnsNamesLength() {
		UnsharedHosts unshared = new UnsharedHosts("redis", 5, true);
		String longName = "a".repeat(300) + ".example";
		unshared.unmatched("b.example");
		unshared.unmatched("a.example");
		unshared.unmatched("b.example");
		unshared.unmatched(longName);

		assertThat(unshared.hosts()).containsExactly("a.example", "a".repeat(UnsharedHosts.MAX_HOST_LENGTH),
				"b.example");
		assertThat(unshared.notListed()).isZero();
	}

	@Test
	void recordsNothingWhenDefaultIsShared() {
		UnsharedHosts unshared = new UnsharedHosts("redis", 5, false);
		unshared.unmatched("a.example");

		assertThat(unshared.hosts()).isEmpty();
		assertThat(unshared.notListed()).isZero();
	}

}

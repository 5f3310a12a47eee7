package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet's runtime over a scripted link, on a fake clock: a failure falls back once, a return needs its good probes
 * in a row one probe interval apart, and the fleet's size is counted while shared and kept against a count that is
 * not the fleet's. Nothing waits on the real clock.
 */
class FleetRuntimeTests {

	private static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

	private final AtomicLong nanos = new AtomicLong(-5_000_000_000L);

	private final ScriptedLink link = new ScriptedLink();

	private final List<Runnable> tasks = new ArrayList<>();

	private final List<String> told = new ArrayList<>();

	private final FleetRuntime runtime = new FleetRuntime(this.link, new FleetRuntimeSettings("Test store",
			Duration.ofMillis(100), PROBE_INTERVAL, Duration.ofSeconds(1), 3, Duration.ZERO), this.nanos::get,
			this.tasks::add, () -> true);

	FleetRuntimeTests() {
		this.runtime.register(new FleetStore.Participant() {

			@Override
			public void sync() {
				FleetRuntimeTests.this.told.add("sync");
			}

			@Override
			public void onFallback() {
				FleetRuntimeTests.this.told.add("fallback");
			}

			@Override
			public void onRejoin() {
				FleetRuntimeTests.this.told.add("rejoin");
			}

		});
		this.runtime.onFallback(() -> this.told.add("listener"));
	}

	@Test
	void theFirstConnectionNeedsOneGoodProbeAndCountsTheMembersAtOnce() {
		assertThat(this.runtime.state()).isEqualTo(FleetRuntime.State.CONNECTING);
		assertThat(this.runtime.shared()).isFalse();
		this.link.count = OptionalLong.of(4);
		this.runtime.tick();
		assertThat(this.runtime.state()).isEqualTo(FleetRuntime.State.SHARED);
		assertThat(this.link.probes).isEqualTo(1);
		assertThat(this.runtime.instances()).isEqualTo(4);
		assertThat(this.told).containsExactly("rejoin");
		assertThat(this.runtime.awaitFirstConnection()).as("connected already: no wait").isTrue();
	}

	@Test
	void aFailureFallsBackOnceTellingEveryParticipantAndListenerOnce() {
		this.runtime.tick();
		this.told.clear();
		this.runtime.fallBack(new TimeoutException());
		this.runtime.fallBack(new IllegalStateException("again"));
		assertThat(this.runtime.state()).isEqualTo(FleetRuntime.State.LOCAL_FALLBACK);
		assertThat(this.runtime.fallbacks()).isEqualTo(1);
		assertThat(this.told).containsExactly("fallback", "listener");
		assertThat(this.runtime.lastError()).hasValue("IllegalStateException: again");
	}

	@Test
	void aReturnNeedsItsGoodProbesInARowOneEveryProbeIntervalAndABadOneStartsAgain() {
		this.runtime.tick();
		this.runtime.fallBack(new TimeoutException());
		this.told.clear();
		this.runtime.tick();
		assertThat(this.link.probes).as("not due before a probe interval").isEqualTo(1);
		for (int i = 0; i < 2; i++) {
			advance(PROBE_INTERVAL);
			this.runtime.tick();
		}
		this.link.failing = true;
		advance(PROBE_INTERVAL);
		this.runtime.tick();
		assertThat(this.runtime.fallbacks()).as("already local: not counted again").isEqualTo(1);
		this.link.failing = false;
		for (int i = 0; i < 2; i++) {
			advance(PROBE_INTERVAL);
			this.runtime.tick();
			assertThat(this.runtime.shared()).isFalse();
		}
		this.link.count = OptionalLong.of(2);
		advance(PROBE_INTERVAL);
		this.runtime.tick();
		assertThat(this.runtime.shared()).isTrue();
		assertThat(this.link.probes).isEqualTo(7);
		assertThat(this.runtime.instances()).isEqualTo(2);
		assertThat(this.told).containsExactly("rejoin");
	}

	@Test
	void whileSharedEachTickCountsTheMembersAndSyncsEveryParticipant() {
		this.runtime.tick();
		this.told.clear();
		this.link.count = OptionalLong.of(3);
		this.runtime.tick();
		this.runtime.tick();
		assertThat(this.told).containsExactly("sync", "sync");
		assertThat(this.link.heartbeats).isEqualTo(3);
		assertThat(this.runtime.instances()).isEqualTo(3);
		assertThat(this.link.probes).isEqualTo(1);
	}

	@Test
	void aCountThatIsNotTheFleetsLeavesTheLastCountStandingAndIsReportedOncePerEpisode() {
		this.link.count = OptionalLong.of(3);
		this.runtime.tick();
		for (OptionalLong bad : List.of(OptionalLong.empty(), OptionalLong.of(0), OptionalLong.of(10_001))) {
			this.link.count = bad;
			this.runtime.heartbeat();
			assertThat(this.runtime.instances()).isEqualTo(3);
		}
		assertThat(this.runtime.keys().fallbacks()).isEqualTo(1);
		this.link.count = OptionalLong.of(5);
		this.runtime.heartbeat();
		this.link.count = OptionalLong.empty();
		this.runtime.heartbeat();
		assertThat(this.runtime.instances()).isEqualTo(5);
		assertThat(this.runtime.keys().fallbacks()).as("valid in between: a new episode").isEqualTo(2);
		this.link.answering = false;
		this.runtime.heartbeat();
		assertThat(this.runtime.keys().fallbacks()).as("no answer is no count").isEqualTo(2);
	}

	@Test
	void aStoreThatFailedItsFirstProbeIsNotWaitedForAtStartup() {
		this.link.failing = true;
		this.runtime.tick();
		assertThat(this.runtime.awaitFirstConnection()).isFalse();
		assertThat(this.runtime.fallbacks()).isEqualTo(1);
		assertThat(this.runtime.lastError()).hasValue("IllegalStateException: down");
	}

	@Test
	void aClosedRuntimeSyncsOnceAndCountsNoFallbackAfter() {
		this.runtime.tick();
		this.told.clear();
		this.runtime.close();
		this.runtime.close();
		this.runtime.fallBack(new TimeoutException());
		assertThat(this.told).containsExactly("sync");
		assertThat(this.runtime.fallbacks()).isZero();
	}

	@Test
	void tasksGoToTheStoresThread() {
		this.runtime.submit(() -> this.told.add("task"));
		assertThat(this.told).isEmpty();
		this.tasks.forEach(Runnable::run);
		assertThat(this.told).containsExactly("task");
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	/** A link whose probe fails while {@link #failing}, and whose heartbeat answers {@link #count}. */
	private static final class ScriptedLink implements FleetLink {

		boolean failing;

		boolean answering = true;

		OptionalLong count = OptionalLong.of(1);

		int probes;

		int heartbeats;

		@Override
		public void probe() {
			this.probes++;
			if (this.failing) {
				throw new IllegalStateException("down");
			}
		}

		@Override
		public Optional<OptionalLong> countMembers(Duration window) {
			this.heartbeats++;
			return this.answering ? Optional.of(this.count) : Optional.empty();
		}

	}

}

package io.github.retryafter.boot.longcalls;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A call slower than the attempt timeout but within the client's own read timeout, on loopback and the real clock:
 * with {@code retry.after.attempt-timeout=300ms}, an answer after 800 ms and clients whose own read timeout is 3 s,
 * the call succeeds under a model profile, as it does without the starter, and fails at the attempt timeout under
 * {@code standard}, as before. Each client waits one real 800 ms answer and one 300 ms timeout.
 */
class LongCallLoopbackTests {

	private static final Duration ANSWER_AFTER = Duration.ofMillis(800);

	private static final String ANSWER = "{\"choices\":[{\"message\":\"a long answer\"}]}";

	private final MockWebServer server = new MockWebServer();

	@BeforeEach
	void start() throws IOException {
		this.server.start(InetAddress.getLoopbackAddress(), 0);
		this.server.enqueue(new MockResponse.Builder().code(200).build());
	}

	@AfterEach
	void stop() {
		this.server.close();
	}

	@ParameterizedTest
	@EnumSource(Transport.class)
	void aCallSlowerThanTheAttemptTimeoutSucceedsUnderAModelProfile(Transport transport) {
		this.server.enqueue(slowAnswer());
		run(transport, "openai", (context) -> {
			assertThat(transport.post(context, url(), "{\"model\":\"m\"}")).isEqualTo(ANSWER);
			assertThat(this.server.getRequestCount()).isEqualTo(2);
		});
	}

	@ParameterizedTest
	@EnumSource(Transport.class)
	void theSameCallFailsAtTheAttemptTimeoutUnderStandardAsBefore(Transport transport) {
		this.server.enqueue(slowAnswer());
		run(transport, "standard", (context) -> {
			long start = System.nanoTime();
			Throwable thrown = catchThrowable(() -> transport.post(context, url(), "{\"model\":\"m\"}"));
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(thrown).isNotNull();
			assertThat(took).isLessThan(ANSWER_AFTER);
			// a POST that timed out may have been processed: it is not sent again
			assertThat(this.server.getRequestCount()).isEqualTo(2);
		});
	}

	private MockResponse slowAnswer() {
		return new MockResponse.Builder().code(200)
			.setHeader("Content-Type", "application/json")
			.body(ANSWER)
			.headersDelay(ANSWER_AFTER.toMillis(), TimeUnit.MILLISECONDS)
			.build();
	}

	private String url() {
		return this.server.url("/v1/chat/completions").toString();
	}

	/** Runs the assertions after the warm-up, which the server answers first. */
	private void run(Transport transport, String profile, ThrowingAssertions assertions) {
		Transport.application()
			.withPropertyValues("retry.after.attempt-timeout=300ms",
					"retry.after.providers.model.hosts=" + this.server.getHostName(),
					"retry.after.providers.model.profile=" + profile)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				transport.warmUp(context, this.server.url("/warm-up").toString());
				assertions.accept(context);
			});
	}

	@FunctionalInterface
	interface ThrowingAssertions {

		void accept(AssertableApplicationContext context) throws Exception;

	}

}

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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A streamed completion is never cut by the attempt timeout once its response has started: a loopback server sends
 * its headers at once, then a server-sent-event body over 1.2 s, against an attempt timeout of 300 ms. Under
 * {@code standard} with that attempt timeout set, the events come every 100 ms (the attempt timeout then bounds each
 * wait for the next bytes, as a read timeout does, never the body as a whole); under a model profile they come every
 * 400 ms, further apart than the attempt timeout (the client's own read timeout, 3 s, bounds those waits). The whole
 * body arrives through each client. Each case waits one real 1.2 s stream.
 */
class StreamedResponseLoopbackTests {

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
	void aStreamLongerThanTheAttemptTimeoutArrivesWholeUnderStandard(Transport transport) {
		String events = events(12);
		this.server.enqueue(stream(events, 12, Duration.ofMillis(100)));
		Transport.application()
			.withPropertyValues("retry.after.attempt-timeout=300ms",
					"retry.after.providers.model.hosts=" + this.server.getHostName())
			.run((context) -> {
				transport.warmUp(context, this.server.url("/warm-up").toString());
				assertThat(transport.post(context, url(), "{\"stream\":true}")).isEqualTo(events);
			});
		assertThat(this.server.getRequestCount()).isEqualTo(2);
	}

	@ParameterizedTest
	@EnumSource(Transport.class)
	void aStreamWithPausesLongerThanTheAttemptTimeoutArrivesWholeUnderAModelProfile(Transport transport) {
		String events = events(3);
		this.server.enqueue(stream(events, 3, Duration.ofMillis(400)));
		Transport.application()
			.withPropertyValues("retry.after.attempt-timeout=300ms",
					"retry.after.providers.model.hosts=" + this.server.getHostName(),
					"retry.after.providers.model.profile=openai")
			.run((context) -> {
				transport.warmUp(context, this.server.url("/warm-up").toString());
				assertThat(transport.post(context, url(), "{\"stream\":true}")).isEqualTo(events);
			});
		assertThat(this.server.getRequestCount()).isEqualTo(2);
	}

	/** {@code count} events of 16 bytes each, then the end marker. */
	private static String events(int count) {
		StringBuilder events = new StringBuilder();
		for (int i = 10; i < 10 + count; i++) {
			events.append("data: {\"i\":").append(i).append("}\n\n");
		}
		return events.toString();
	}

	/** Headers at once, then one 16-byte event per {@code every}, the first after {@code every}. */
	private static MockResponse stream(String events, int count, Duration every) {
		return new MockResponse.Builder().code(200)
			.setHeader("Content-Type", "text/event-stream")
			.body(events)
			// the throttle would pace reading the request's body too, holding the headers back
			.doNotReadRequestBody()
			.bodyDelay(every.toMillis(), TimeUnit.MILLISECONDS)
			.throttleBody(events.length() / count, every.toMillis(), TimeUnit.MILLISECONDS)
			.build();
	}

	private String url() {
		return this.server.url("/v1/chat/completions").toString();
	}

}

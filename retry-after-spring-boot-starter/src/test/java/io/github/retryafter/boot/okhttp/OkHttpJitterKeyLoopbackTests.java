package io.github.retryafter.boot.okhttp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keyed jitter under OkHttp uses the application's {@code retry.after.jitter-key}, as the Spring adapters do: two
 * instances given the same key and the same idempotency key wait exactly as long for a {@code 503 Retry-After: 10};
 * instances with different keys are spread apart. Loopback server, fake clock.
 */
class OkHttpJitterKeyLoopbackTests {

	private final RawHttpServer server = new RawHttpServer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class))
		.withBean(FakeClock.class, FakeClock::create)
		.withPropertyValues("retry.after.jitter=keyed", "retry.after.pacing.mode=off");

	@AfterEach
	void stop() {
		this.server.close();
	}

	@Test
	void instancesWithOneJitterKeyWaitAlikeAndInstancesWithTwoDoNot() {
		Duration a = firstWait("fleet-a");
		Duration sameKey = firstWait("fleet-a");
		Duration otherKey = firstWait("fleet-b");
		assertThat(a).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11));
		assertThat(sameKey).isEqualTo(a);
		assertThat(otherKey).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11)).isNotEqualTo(a);
	}

	private Duration firstWait(String jitterKey) {
		this.server.script((out, connection) -> {
			out.write("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 10\r\nContent-Length: 0\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		}, RawHttpServer.Behaviour.ok());
		Duration[] wait = new Duration[1];
		this.contextRunner.withPropertyValues("retry.after.jitter-key=" + jitterKey).run((context) -> {
			OkHttpClient client = context.getBean(RetryAfterOkHttp.class).apply(new OkHttpClient.Builder()).build();
			Request request = new Request.Builder().url(this.server.uri().toString() + "/orders")
				.header("Idempotency-Key", "order-42")
				.post(RequestBody.create("{}", MediaType.get("application/json")))
				.build();
			try (Response response = client.newCall(request).execute()) {
				assertThat(response.code()).isEqualTo(200);
			}
			// the call's sleeper wakes every 100 ms to look at Call.cancel(): the wait is the sum of its sleeps
			wait[0] = context.getBean(FakeClock.class).sleeps().stream().reduce(Duration.ZERO, Duration::plus);
		});
		return wait[0];
	}

}

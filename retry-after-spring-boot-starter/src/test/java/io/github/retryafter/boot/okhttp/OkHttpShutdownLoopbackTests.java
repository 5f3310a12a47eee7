package io.github.retryafter.boot.okhttp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.okhttp.RetryOutcomeException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing the application context cancels an OkHttp call's wait, as it does the Spring adapters': a call told
 * {@code 503 Retry-After: 20} ends {@code CANCELLED} within moments of the close and sends nothing more. Loopback, the
 * real sleeper (the wait is cut short, never waited out).
 */
class OkHttpShutdownLoopbackTests {

	private final RawHttpServer server = new RawHttpServer();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class))
		.withPropertyValues("retry.after.pacing.mode=off");

	@AfterEach
	void stop() {
		this.server.close();
	}

	@Test
	void closingTheContextCancelsAWaitingCall() throws Exception {
		this.server.script((out, connection) -> {
			out.write("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 20\r\nContent-Length: 0\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
		}, RawHttpServer.Behaviour.ok());
		this.contextRunner.run((context) -> {
			OkHttpClient client = context.getBean(RetryAfterOkHttp.class).apply(new OkHttpClient.Builder()).build();
			CompletableFuture<Response> call = CompletableFuture.supplyAsync(() -> {
				try {
					return client.newCall(new Request.Builder().url(this.server.uri().toString()).build()).execute();
				}
				catch (java.io.IOException ex) {
					throw new java.io.UncheckedIOException(ex);
				}
			});
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (this.server.requests().isEmpty() && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(this.server.requests()).hasSize(1);
			long closing = System.nanoTime();
			context.close();
			try (Response response = call.get(5, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(2));
				assertThat(response.code()).isEqualTo(503);
				assertThat(RetryOutcomeException.of(response)).map(RetryOutcomeException::outcome)
					.contains(Outcome.CANCELLED);
			}
			assertThat(this.server.requests()).as("nothing sent after the close").hasSize(1);
		});
	}

}

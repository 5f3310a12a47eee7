package io.github.retryafter.boot;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.Ticker;
import io.github.retryafter.boot.actuate.RetryAfterActivity;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterWebClientAutoConfiguration;
import io.github.retryafter.boot.testing.RawHttpServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 32, defect 4: a server's text never reaches a log line, the endpoint's last refusal or an exception message
 * uncut. A server whose status line is {@code HTTP/1.1 2X0 session=SECRET…} padded to 300 KB produced a
 * 300,472-character WARN line, a 300,223-character {@code lastRefusal.reason} and a 300,316-character exception
 * message (the JDK client quotes the status line in its {@code ProtocolException}; Reactor Netty's failure does not).
 * Loopback, both Spring clients, the real clock (nothing is waited out: an unkeyed POST is sent once).
 */
@ExtendWith(OutputCaptureExtension.class)
class ServerTextLoopbackTests {

	private static final int PADDING = 300_000;

	private final RawHttpServer server = new RawHttpServer();

	private final RetryAfterActivity activity = new RetryAfterActivity(InstantSource.system(), Ticker.system());

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, RetryAfterWebClientAutoConfiguration.class,
				HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class,
				ReactiveHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				WebClientAutoConfiguration.class))
		.withBean(RetryAfterActivity.class, () -> this.activity)
		.withPropertyValues("retry.after.deadline=5s", "spring.http.clients.imperative.factory=jdk");

	@AfterEach
	void stop() {
		this.server.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "RestClient", "WebClient" })
	void aHugeHostileStatusLineIsNamedByItsFailureClassOnly(String client, CapturedOutput output) {
		this.server.script((out, connection) -> {
			byte[] padding = new byte[PADDING];
			Arrays.fill(padding, (byte) 'A');
			out.write("HTTP/1.1 2X0 session=SECRET\u001b[2J".getBytes(StandardCharsets.ISO_8859_1));
			out.write(padding);
			out.write("\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
		});
		this.contextRunner.run((context) -> {
			Throwable thrown = catchThrowable(() -> send(client, context));
			assertThat(thrown).isNotNull();
			assertThat(this.server.requests()).as("an unkeyed POST that failed is sent once").hasSize(1);
			assertShown("the exception message", outcomeOf(thrown).getMessage());
			this.activity.snapshot("default")
				.lastRefusal()
				.ifPresent((refusal) -> assertShown("the endpoint's lastRefusal.reason", refusal.reason()));
			List<String> logged = output.getAll().lines().filter((line) -> line.contains("retry-after: provider")).toList();
			if (client.equals("RestClient")) {
				assertThat(logged).as("the WARN for an outcome to look up (the JDK client's failure is an I/O failure)")
					.isNotEmpty();
			}
			assertThat(logged).allSatisfy((line) -> assertShown("a log line", line));
		});
	}

	private static void assertShown(String where, String text) {
		assertThat(text).as(where).doesNotContain("SECRET").doesNotContain("\u001b").doesNotContain("AAAAAAAA");
		assertThat(text.length()).as(where + " is a few sentences, not the server's 300 KB").isLessThan(2_000);
	}

	private void send(String client, ApplicationContext context) {
		String base = this.server.uri().toString();
		if (client.equals("RestClient")) {
			context.getBean(RestClient.Builder.class)
				.baseUrl(base)
				.build()
				.post()
				.uri("/orders")
				.body("{}")
				.retrieve()
				.toBodilessEntity();
		}
		else {
			context.getBean(WebClient.Builder.class)
				.baseUrl(base)
				.build()
				.post()
				.uri("/orders")
				.bodyValue("{}")
				.retrieve()
				.toBodilessEntity()
				.block(Duration.ofSeconds(10));
		}
	}

	private static RetryAfterOutcomeException outcomeOf(Throwable thrown) {
		Function<Throwable, RetryAfterOutcomeException> find = (each) -> {
			if (each instanceof RetryAfterOutcomeException outcome) {
				return outcome;
			}
			for (Throwable suppressed : each.getSuppressed()) {
				if (suppressed instanceof RetryAfterOutcomeException outcome) {
					return outcome;
				}
			}
			return null;
		};
		for (Throwable each = thrown; each != null; each = each.getCause()) {
			RetryAfterOutcomeException found = find.apply(each);
			if (found != null) {
				return found;
			}
		}
		throw new AssertionError("no RetryAfterOutcomeException in " + thrown);
	}

}

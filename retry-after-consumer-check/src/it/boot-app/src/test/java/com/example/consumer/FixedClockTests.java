package com.example.consumer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

import io.github.retryafter.RandomSource;
import io.github.retryafter.test.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixtures by coordinates (retry-after-test, test scope), as docs/testing-with-a-fixed-clock.md shows: a
 * {@link FakeClock} bean is the starter's ticker, wall clock and sleeper, so a {@code 503 Retry-After: 1} is waited
 * for on virtual time, exactly, and the test does not wait the second.
 */
class FixedClockTests {

	private final AtomicInteger arrivals = new AtomicInteger();

	private HttpServer server;

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.createContext("/quote", (exchange) -> {
			if (this.arrivals.incrementAndGet() == 1) {
				exchange.getResponseHeaders().add("Retry-After", "1");
				exchange.sendResponseHeaders(503, -1);
			}
			else {
				exchange.sendResponseHeaders(200, -1);
			}
			exchange.close();
		});
		this.server.start();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
	}

	@Test
	void theRetryWaitsTheServersSecondPlusJitterOnTheFakeClock() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ConsumerApplication.class,
				FixedTime.class)
			.web(WebApplicationType.NONE)
			.run()) {
			RestClient client = context.getBean(RestClient.Builder.class)
				.baseUrl("http://127.0.0.1:" + this.server.getAddress().getPort())
				.build();

			int status = client.get().uri("/quote").retrieve().toBodilessEntity().getStatusCode().value();

			assertThat(status).isEqualTo(200);
			assertThat(this.arrivals).hasValue(2);
			// floor 1 s, spread clamp(0.25 s, 250 ms, 30 s), draw 0.5: 1.125 s, slept on the fake clock (no real wait)
			assertThat(context.getBean(FakeClock.class).sleeps()).containsExactly(Duration.ofMillis(1125));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class FixedTime {

		@Bean
		FakeClock retryClock() {
			return FakeClock.create();
		}

		@Bean
		RandomSource retryRandom() {
			return () -> 0.5;
		}

	}

}

package com.example.consumer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The app, built from the BOM and the starter's coordinates only, against a loopback server that answers
 * {@code 503 Retry-After: 1} and then {@code 200}: the auto-configured {@code RestClient.Builder} retries once, not
 * before the second the server asked for, and the call succeeds.
 */
class RetriedCallTests {

	private final List<Long> arrivals = new CopyOnWriteArrayList<>();

	private final List<Long> downArrivals = new CopyOnWriteArrayList<>();

	private HttpServer server;

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.createContext("/down", (exchange) -> {
			this.downArrivals.add(System.nanoTime());
			exchange.getResponseHeaders().add("Retry-After", "99999999999");
			exchange.sendResponseHeaders(503, -1);
			exchange.close();
		});
		this.server.createContext("/quote", (exchange) -> {
			this.arrivals.add(System.nanoTime());
			if (this.arrivals.size() == 1) {
				exchange.getResponseHeaders().add("Retry-After", "1");
				exchange.sendResponseHeaders(503, -1);
			}
			else {
				byte[] body = "42".getBytes(StandardCharsets.UTF_8);
				exchange.sendResponseHeaders(200, body.length);
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(body);
				}
			}
			exchange.close();
		});
		this.server.start();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
	}

	/**
	 * One server reached by two names, so two hosts no provider names: the first host's {@code Retry-After} of three
	 * thousand years ends its own call at once and pauses that host only; the other host's call is sent and succeeds.
	 */
	@Test
	void oneHostsHugeRetryAfterDoesNotStopTrafficToAnotherHost() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ConsumerApplication.class)
			.web(WebApplicationType.NONE)
			.run()) {
			int port = this.server.getAddress().getPort();
			RestClient hostA = context.getBean(RestClient.Builder.class).baseUrl("http://localhost:" + port).build();
			RestClient hostB = context.getBean(RestClient.Builder.class).baseUrl("http://127.0.0.1:" + port).build();

			int status = hostA.get()
				.uri("/down")
				.retrieve()
				.onStatus((code) -> true, (request, response) -> {
				})
				.toBodilessEntity()
				.getStatusCode()
				.value();
			String body = hostB.get().uri("/quote").retrieve().body(String.class);

			assertThat(status).isEqualTo(503);
			assertThat(this.downArrivals).as("sent once, never retried").hasSize(1);
			assertThat(body).isEqualTo("42");
			assertThat(this.arrivals).as("the other host's first request reached the server").isNotEmpty();
		}
	}

	@Test
	void aCallAnswered503WithRetryAfterIsRetriedAfterTheServersSecondAndSucceeds() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ConsumerApplication.class)
			.web(WebApplicationType.NONE)
			.run()) {
			RestClient client = context.getBean(RestClient.Builder.class)
				.baseUrl("http://127.0.0.1:" + this.server.getAddress().getPort())
				.build();

			String body = client.get().uri("/quote").retrieve().body(String.class);

			assertThat(body).isEqualTo("42");
			assertThat(this.arrivals).hasSize(2);
			assertThat(Duration.ofNanos(this.arrivals.get(1) - this.arrivals.get(0)))
				.isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		}
	}

}

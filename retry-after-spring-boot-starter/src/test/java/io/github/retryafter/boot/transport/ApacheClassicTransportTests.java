package io.github.retryafter.boot.transport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.retryafter.engine.ProviderConventions;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;
import io.github.retryafter.test.FakeClock;
import io.github.retryafter.test.ScriptedRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * A client the starter does not know, on the core's transport contract in one small file
 * ({@link ApacheClassicTransport}), against a loopback server: it waits what the server asked (on a fake clock),
 * carries the provider's attempt header, and ends a refused connection with the client's own exception and the
 * account attached.
 */
class ApacheClassicTransportTests {

	private final FakeClock clock = FakeClock.create();

	private final Deque<Integer> statuses = new ArrayDeque<>();

	private final List<String> retryCounts = new CopyOnWriteArrayList<>();

	private HttpServer server;

	private CloseableHttpClient client;

	@BeforeEach
	void start() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.createContext("/", this::answer);
		this.server.start();
		// one retry layer: Apache's default strategy would resend the 503 itself after a real second
		this.client = HttpClients.custom().disableAutomaticRetries().build();
	}

	@AfterEach
	void stop() throws IOException {
		this.client.close();
		this.server.stop(0);
	}

	@Test
	void a503WithRetryAfterIsWaitedOutAndRetriedWithTheAttemptHeader() throws Exception {
		this.statuses.add(503);
		this.statuses.add(200);
		ApacheClassicTransport transport = new ApacheClassicTransport(this.client, engine(), this.clock);
		try (ClassicHttpResponse response = transport.execute(new HttpGet(uri()))) {
			assertThat(response.getCode()).isEqualTo(200);
			assertThat(EntityUtils.toString(response.getEntity())).isEqualTo("ok");
		}
		assertThat(this.retryCounts).containsExactly("0", "1");
		assertThat(this.clock.sleeps()).hasSize(1);
		assertThat(this.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
			.isLessThan(Duration.ofMillis(1250));
	}

	@Test
	void aRefusedConnectionEndsWithTheClientsOwnExceptionAndTheAccountAttached() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closedPort = socket.getLocalPort();
		}
		ApacheClassicTransport transport = new ApacheClassicTransport(this.client, engine(), this.clock);
		assertThatIOException()
			.isThrownBy(() -> transport.execute(new HttpGet("http://127.0.0.1:" + closedPort + "/")))
			.isInstanceOf(java.net.ConnectException.class)
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
				.satisfies((account) -> assertThat(account.getMessage())
					.startsWith("retry-after stopped the call to provider 'default' with ATTEMPTS_EXHAUSTED after "
							+ RetryPolicy.DEFAULTS.maxAttempts() + " attempt(s)")));
	}

	@Test
	void theWholeTransportIsOneSmallFile() throws IOException {
		Path source = Path.of("src/test/java/io/github/retryafter/boot/transport/ApacheClassicTransport.java");
		assertThat(Files.readAllLines(source)).hasSizeLessThan(130);
	}

	private RetryEngine engine() {
		return RetryEngine.builder()
			.policy(RetryPolicy.DEFAULTS.toBuilder()
				.conventions(ProviderConventions.NONE.withAttemptHeader("x-stainless-retry-count"))
				.build())
			.ticker(this.clock)
			.wallClock(this.clock)
			.random(ScriptedRandom.of(0.0, 0.0, 0.0, 0.0, 0.0))
			.build();
	}

	private String uri() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/models";
	}

	private void answer(HttpExchange exchange) throws IOException {
		this.retryCounts.add(exchange.getRequestHeaders().getFirst("x-stainless-retry-count"));
		Integer status = this.statuses.poll();
		byte[] body = ((status == null || status == 200) ? "ok" : "busy").getBytes(StandardCharsets.UTF_8);
		if (status != null && status == 503) {
			exchange.getResponseHeaders().set("Retry-After", "1");
		}
		exchange.sendResponseHeaders((status != null) ? status : 200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

}

package io.github.retryafter.boot.pacing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.HttpStatusCodeException;
import org.springframework.web.client.RestClient;

import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model provider's windowed burst over real HTTP, half the size of the measure's: 25 POSTs started together through
 * the auto-configured {@link RestClient}, the provider configured with the {@code openai} profile and the starter's
 * defaults otherwise, against a loopback server that admits 5 requests in any second and refuses the rest with
 * {@code 429}, {@code retry-after-ms: 2000} and {@code Retry-After: 2}, no field describing its window. The window
 * admits the 25 within 5 s. Asserted: every call succeeds, no request of a call reaches the server before the instant
 * a refusal of that call named (judged on the server's clock), and the last success comes within 1.8× of the 5 s.
 * The figures are printed with what the server answered per 200 ms; on loopback the first burst's successes come back
 * before its first refusal, so the gate's first estimate is lower than in the simulator (docs/pacing.md has both).
 * Real waits of 7 to 9 s in all (the simulator's {@code sliding-window} workload runs the full measure on virtual
 * time).
 */
class SlidingWindowLoopbackTests {

	private static final int CALLS = 25;

	private static final int PER_WINDOW = 5;

	private static final Duration WINDOW = Duration.ofSeconds(1);

	private static final Duration WAIT = Duration.ofSeconds(2);

	private final SlidingWindowServer server = new SlidingWindowServer(PER_WINDOW, WINDOW, WAIT);

	private final ExecutorService callers = Executors.newFixedThreadPool(CALLS);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		.withPropertyValues("retry.after.providers.model.hosts=" + this.server.host(),
				"retry.after.providers.model.profile=openai");

	@AfterEach
	void stop() {
		this.callers.shutdownNow();
		this.server.close();
	}

	@Test
	void twentyFiveCallsDrainAtTheWindowsPaceWithNoRequestBeforeItsOwnRefusalsInstant() {
		this.contextRunner.run((context) -> {
			RestClient client = context.getBean(RestClient.Builder.class).build();
			List<Future<Integer>> calls = new ArrayList<>();
			for (int i = 0; i < CALLS; i++) {
				String call = "call-" + i;
				calls.add(this.callers.submit(() -> client.post()
					.uri(this.server.url("/v1/chat/completions"))
					.header(SlidingWindowServer.CALL, call)
					.contentType(MediaType.APPLICATION_JSON)
					.body("{\"model\":\"m\",\"input\":\"" + call + "\"}")
					.retrieve()
					.toBodilessEntity()
					.getStatusCode()
					.value()));
			}
			List<Integer> statuses = new ArrayList<>();
			for (Future<Integer> call : calls) {
				try {
					statuses.add(call.get(30, TimeUnit.SECONDS));
				}
				catch (ExecutionException ex) {
					statuses.add((ex.getCause() instanceof HttpStatusCodeException failed) ? failed.getStatusCode().value() : -1);
				}
			}
			Duration last = this.server.lastSuccess();
			Duration bound = WINDOW.multipliedBy((CALLS + PER_WINDOW - 1) / PER_WINDOW);
			System.out.printf("sliding window on loopback: %d calls, %d requests, last success after %d ms (window "
					+ "bound %d ms, %.2fx), %d early%n", CALLS, this.server.requests(), last.toMillis(), bound.toMillis(),
					last.toNanos() / (double) bound.toNanos(), this.server.early());
			System.out.print(this.server.timeline());
			assertThat(statuses).hasSize(CALLS).containsOnly(200);
			assertThat(this.server.early()).as("requests before their own refusal's instant").isZero();
			assertThat(last).as("the last success after the server's first request")
				.isLessThanOrEqualTo(Duration.ofNanos((long) (bound.toNanos() * 1.8)));
		});
	}

	/**
	 * A loopback server admitting {@code perWindow} requests in any {@code window} (refused requests do not count),
	 * refusing the rest with {@code 429}, {@code retry-after-ms} and {@code Retry-After} (whole seconds, rounded up),
	 * judged on its own {@link System#nanoTime()}: a refusal records, for the call named in {@link #CALL}, the instant
	 * its wait names (when the answer is written plus the wait); a later request of that call before it is early.
	 */
	static final class SlidingWindowServer implements AutoCloseable {

		static final String CALL = "X-Call";

		private final HttpServer server;

		private final ExecutorService executor = Executors.newFixedThreadPool(8);

		private final int perWindow;

		private final long windowNanos;

		private final long waitNanos;

		// arrivals of the requests admitted within the last window, oldest first: at most perWindow, guarded by itself
		private final ArrayDeque<Long> admitted = new ArrayDeque<>();

		// per call, the instant its last refusal named
		private final Map<String, Long> notBefore = new ConcurrentHashMap<>();

		private final AtomicInteger requests = new AtomicInteger();

		private final AtomicInteger early = new AtomicInteger();

		private final AtomicLong first = new AtomicLong(Long.MIN_VALUE);

		private final AtomicLong lastSuccess = new AtomicLong(Long.MIN_VALUE);

		// every answer: when, and its status; one per request
		private final java.util.Queue<long[]> answers = new java.util.concurrent.ConcurrentLinkedQueue<>();

		SlidingWindowServer(int perWindow, Duration window, Duration wait) {
			this.perWindow = perWindow;
			this.windowNanos = window.toNanos();
			this.waitNanos = wait.toNanos();
			try {
				this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
			this.server.createContext("/", this::handle);
			this.server.setExecutor(this.executor);
			this.server.start();
		}

		String host() {
			return "127.0.0.1";
		}

		String url(String path) {
			return "http://" + host() + ":" + this.server.getAddress().getPort() + path;
		}

		int requests() {
			return this.requests.get();
		}

		int early() {
			return this.early.get();
		}

		Duration lastSuccess() {
			return Duration.ofNanos(this.lastSuccess.get() - this.first.get());
		}

		private void handle(HttpExchange exchange) throws IOException {
			try (exchange) {
				exchange.getRequestBody().readAllBytes();
				long now = System.nanoTime();
				this.first.compareAndSet(Long.MIN_VALUE, now);
				this.requests.incrementAndGet();
				String call = exchange.getRequestHeaders().getFirst(CALL);
				Long named = (call != null) ? this.notBefore.get(call) : null;
				if (named != null && now - named < 0) {
					this.early.incrementAndGet();
				}
				boolean admitted = admit(now);
				this.answers.add(new long[] { now, admitted ? 200 : 429 });
				if (admitted) {
					this.lastSuccess.accumulateAndGet(now, Math::max);
					byte[] body = "{\"choices\":[]}".getBytes(StandardCharsets.UTF_8);
					exchange.getResponseHeaders().add("Content-Type", "application/json");
					exchange.sendResponseHeaders(200, body.length);
					try (OutputStream out = exchange.getResponseBody()) {
						out.write(body);
					}
					return;
				}
				exchange.getResponseHeaders().add("retry-after-ms", Long.toString(this.waitNanos / 1_000_000));
				exchange.getResponseHeaders()
					.add("Retry-After", Long.toString((this.waitNanos + 999_999_999) / 1_000_000_000));
				if (call != null) {
					this.notBefore.put(call, System.nanoTime() + this.waitNanos);
				}
				exchange.sendResponseHeaders(429, -1);
			}
		}

		/** What the server answered per 200 ms after its first request. */
		String timeline() {
			java.util.TreeMap<Long, int[]> slices = new java.util.TreeMap<>();
			for (long[] answer : this.answers) {
				int[] counts = slices.computeIfAbsent((answer[0] - this.first.get()) / 200_000_000L, (k) -> new int[2]);
				counts[(answer[1] == 200) ? 0 : 1]++;
			}
			StringBuilder out = new StringBuilder();
			slices.forEach((slice, counts) -> out.append(String.format("%6d ms  200: %3d  429: %3d%n", slice * 200,
					counts[0], counts[1])));
			return out.toString();
		}

		private boolean admit(long now) {
			synchronized (this.admitted) {
				while (!this.admitted.isEmpty() && now - this.admitted.peekFirst() >= this.windowNanos) {
					this.admitted.pollFirst();
				}
				if (this.admitted.size() < this.perWindow) {
					this.admitted.addLast(now);
					return true;
				}
				return false;
			}
		}

		@Override
		public void close() {
			this.server.stop(0);
			this.executor.shutdownNow();
		}

	}

}

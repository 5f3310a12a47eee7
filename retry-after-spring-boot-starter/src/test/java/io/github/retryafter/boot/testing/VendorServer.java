package io.github.retryafter.boot.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * A loopback server that answers each path from a script of statuses with whatever header fields a vendor sends
 * ({@code retry-after-ms}, {@code x-should-retry}, {@code Stripe-Should-Retry}, windows), stamps every response with a
 * {@code Date} from the real clock, and records every request, so a test asserts what the server saw.
 */
public final class VendorServer implements AutoCloseable {

	private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final MockWebServer server = new MockWebServer();

	private final Map<String, Deque<Answer>> scripts = new ConcurrentHashMap<>();

	private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();

	public VendorServer() {
		this.server.setDispatcher(new Dispatcher() {
			@Override
			public MockResponse dispatch(RecordedRequest request) {
				return VendorServer.this.dispatch(request);
			}
		});
		try {
			this.server.start(InetAddress.getLoopbackAddress(), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Answers {@code path} with these answers in order; the last repeats. */
	public VendorServer script(String path, Answer... answers) {
		this.scripts.put(path, new ArrayDeque<>(List.of(answers)));
		return this;
	}

	/** The host requests are sent to, for a provider's {@code hosts}. */
	public String host() {
		return this.server.getHostName();
	}

	/** The URL of a path. */
	public String url(String path) {
		return this.server.url(path).toString();
	}

	/** Every request the server saw for a path, in order. */
	public List<RecordedRequest> requests(String path) {
		return this.requests.stream().filter((request) -> request.getUrl().encodedPath().equals(path)).toList();
	}

	private MockResponse dispatch(RecordedRequest request) {
		this.requests.add(request);
		Deque<Answer> script = this.scripts.get(request.getUrl().encodedPath());
		if (script == null) {
			return new MockResponse.Builder().code(404).build();
		}
		Answer answer;
		synchronized (script) {
			answer = (script.size() > 1) ? script.poll() : script.peek();
		}
		MockResponse.Builder response = new MockResponse.Builder().code(answer.status())
			.setHeader("Date", HTTP_DATE.format(Instant.now()))
			.body("status " + answer.status());
		for (int i = 0; i + 1 < answer.fields().length; i += 2) {
			response.addHeader(answer.fields()[i], answer.fields()[i + 1]);
		}
		return response.build();
	}

	@Override
	public void close() {
		this.server.close();
	}

	/**
	 * One scripted answer: a status and header fields as name, value pairs.
	 *
	 * @param status the status code
	 * @param fields names and values, alternating
	 */
	public record Answer(int status, String... fields) {

		public static Answer of(int status, String... fields) {
			return new Answer(status, fields);
		}

	}

}

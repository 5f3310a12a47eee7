package io.github.retryafter.boot.testing;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;

/**
 * A real HTTP server on loopback that answers each path from a script, stamps every response with a {@code Date} from
 * a clock that can be set off by N seconds, records every request it sees, and holds the records a create made, by
 * idempotency key, so a test can assert what the server actually saw and kept.
 */
public final class FlakyProvider implements AutoCloseable {

	// IMF-fixdate: a two-digit day, unlike RFC_1123_DATE_TIME, which writes "1 Dec" and is refused by the planner
	private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US)
		.withZone(ZoneOffset.UTC);

	private final MockWebServer server = new MockWebServer();

	private final Map<String, Deque<Reply>> scripts = new ConcurrentHashMap<>();

	private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();

	private final Map<String, AtomicInteger> records = new ConcurrentHashMap<>();

	private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();

	private volatile Duration clockOffset = Duration.ZERO;

	public FlakyProvider() {
		this.server.setDispatcher(new Dispatcher() {
			@Override
			public MockResponse dispatch(RecordedRequest request) {
				return FlakyProvider.this.dispatch(request);
			}
		});
		try {
			this.server.start(java.net.InetAddress.getLoopbackAddress(), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Scripts the replies of one path, in order; the last one repeats.
	 */
	public FlakyProvider script(String path, Reply... replies) {
		this.scripts.put(path, new ArrayDeque<>(List.of(replies)));
		return this;
	}

	/**
	 * Sets the server's clock this far from the real one (positive: the server runs fast).
	 */
	public FlakyProvider clockOffset(Duration offset) {
		this.clockOffset = offset;
		return this;
	}

	public URI uri(String path) {
		return this.server.url(path).uri();
	}

	public String baseUrl() {
		return "http://" + this.server.getHostName() + ":" + this.server.getPort();
	}

	/** Returns how many requests the server saw for a path. */
	public int requests(String path) {
		return (int) this.requests.stream().filter((request) -> path.equals(request.getUrl().encodedPath())).count();
	}

	/** Returns every request the server saw, in order. */
	public List<RecordedRequest> recorded() {
		return List.copyOf(this.requests);
	}

	/** Returns how many records a create with this idempotency key left on the server. */
	public int records(String idempotencyKey) {
		AtomicInteger count = this.records.get(idempotencyKey);
		return (count != null) ? count.get() : 0;
	}

	/** Returns how many records exist in all. */
	public int totalRecords() {
		return this.records.values().stream().mapToInt(AtomicInteger::get).sum();
	}

	/** Returns the {@link System#nanoTime()} at which each request for a path reached the server, in order. */
	public List<Long> arrivalNanos(String path) {
		return List.copyOf(this.arrivals.getOrDefault(path, List.of()));
	}

	private MockResponse dispatch(RecordedRequest request) {
		long arrived = System.nanoTime();
		this.requests.add(request);
		String path = request.getUrl().encodedPath();
		this.arrivals.computeIfAbsent(path, (key) -> new CopyOnWriteArrayList<>()).add(arrived);
		Deque<Reply> script = this.scripts.get(path);
		if (script == null) {
			return new MockResponse.Builder().code(404).build();
		}
		Reply reply;
		synchronized (script) {
			reply = (script.size() > 1) ? script.poll() : script.peek();
		}
		Instant serverNow = Instant.now().plus(this.clockOffset);
		if (reply.create()) {
			// a keyed create is applied once: a repeat with the same key finds the first record
			String key = request.getHeaders().get("Idempotency-Key");
			this.records.computeIfAbsent((key != null) ? key : "unkeyed-" + this.requests.size(),
					(k) -> new AtomicInteger(1));
		}
		MockResponse.Builder response = new MockResponse.Builder().code(reply.status())
			.setHeader("Date", HTTP_DATE.format(serverNow))
			.body(reply.body());
		reply.retryAfterSeconds().ifPresent((value) -> response.setHeader("Retry-After", value));
		if (reply.retryAfterIn() != null) {
			response.setHeader("Retry-After", HTTP_DATE.format(serverNow.plus(reply.retryAfterIn())));
		}
		if (reply.location() != null) {
			response.setHeader("Location", reply.location());
		}
		if (!reply.delay().isZero()) {
			response.headersDelay(reply.delay().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
		}
		if (reply.dropResponse()) {
			response.onResponseStart(new SocketEffect.CloseSocket(true, false, false));
		}
		return response.build();
	}

	@Override
	public void close() {
		this.server.close();
	}

	/**
	 * One scripted reply.
	 *
	 * @param status the status code
	 * @param retryAfterSeconds a literal Retry-After value
	 * @param retryAfterIn a Retry-After HTTP-date this far after the server's Date
	 * @param location a Location header
	 * @param body the body
	 * @param create whether the request creates a record (held once per idempotency key)
	 * @param dropResponse whether to close the connection instead of answering
	 * @param delay how long the server takes before it answers
	 */
	public record Reply(int status, java.util.Optional<String> retryAfterSeconds, Duration retryAfterIn,
			String location, String body, boolean create, boolean dropResponse, Duration delay) {

		public Reply(int status, java.util.Optional<String> retryAfterSeconds, Duration retryAfterIn, String location,
				String body, boolean create, boolean dropResponse) {
			this(status, retryAfterSeconds, retryAfterIn, location, body, create, dropResponse, Duration.ZERO);
		}

		/** The same reply, answered only after {@code delay}. */
		public Reply delayed(Duration delay) {
			return new Reply(this.status, this.retryAfterSeconds, this.retryAfterIn, this.location, this.body,
					this.create, this.dropResponse, delay);
		}

		public static Reply status(int status) {
			return new Reply(status, java.util.Optional.empty(), null, null, "status " + status, false, false);
		}

		public static Reply ok() {
			return status(200);
		}

		public Reply retryAfter(String value) {
			return new Reply(this.status, java.util.Optional.of(value), null, this.location, this.body, this.create,
					this.dropResponse);
		}

		public Reply retryAfterDate(Duration in) {
			return new Reply(this.status, this.retryAfterSeconds, in, this.location, this.body, this.create,
					this.dropResponse);
		}

		public Reply location(String location) {
			return new Reply(this.status, this.retryAfterSeconds, this.retryAfterIn, location, this.body, this.create,
					this.dropResponse);
		}

		public Reply creates() {
			return new Reply(this.status, this.retryAfterSeconds, this.retryAfterIn, this.location, this.body, true,
					this.dropResponse);
		}

		public Reply responseLost() {
			return new Reply(this.status, this.retryAfterSeconds, this.retryAfterIn, this.location, this.body, this.create,
					true);
		}

	}

}

package io.github.retryafter.boot.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP server on loopback that behaves like issue 7's provider, judged entirely on its own clock: for
 * {@code outage} after the first request it answers {@code 503} with {@code Retry-After}, then it admits
 * {@code perSecond} requests a second through a token bucket of {@code burst} and answers {@code 429} with
 * {@code Retry-After} to the excess. Each refusal records, for the operation named in the {@code X-Operation} header,
 * the instant its {@code Retry-After} names on the server's clock (the moment the response was written plus the
 * delay); a later request of that operation arriving before that instant is an early arrival. The server's clock is
 * {@link System#nanoTime()} read in the handler, so early arrivals are judged at its resolution.
 */
public final class RateLimitedProvider implements AutoCloseable {

	/** The header naming the logical operation a request belongs to. */
	public static final String OPERATION = "X-Operation";

	private static final long SECOND = 1_000_000_000L;

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(8);

	private final java.util.concurrent.ScheduledExecutorService delayer = Executors.newScheduledThreadPool(2);

	private volatile long refusalDelayNanos;

	private final long outageNanos;

	private final double perSecond;

	private final int burst;

	private final int retryAfterSeconds;

	private final int outageRetryAfterSeconds;

	// null: delay-seconds; else HTTP-dates on true time plus this offset (zero: the JDK's server writes its own Date)
	private final java.time.Duration clockOffset;

	private final long wallAtStartNanos = java.time.Instant.now().toEpochMilli() * 1_000_000L;

	private final long tickerAtStart = System.nanoTime();

	// when each success arrived, nanos after the first request; at most one per request received
	private final java.util.Queue<Long> completions = new java.util.concurrent.ConcurrentLinkedQueue<>();

	private final Map<String, Long> notBefore = new ConcurrentHashMap<>();

	private final AtomicInteger requests = new AtomicInteger();

	// every answer: nanos after the first request, and its status
	private final java.util.Queue<long[]> answers = new java.util.concurrent.ConcurrentLinkedQueue<>();

	private final AtomicInteger early = new AtomicInteger();

	// per operation named in the header, when its first attempt arrived, nanos after the first request; at most one
	// per operation id the test sends
	private final Map<String, Long> firstAttempts = new ConcurrentHashMap<>();

	// the first refusal: when it was answered and the instant it named, nanos after the first request
	private long firstRefusal = -1;

	private long firstRefusalNamed = -1;

	private final AtomicInteger successes = new AtomicInteger();

	private boolean started;

	private long earliestReturn;

	private boolean returnNamed;

	private long firstRequest;

	private boolean refilling;

	private double tokens;

	private long refilledAt;

	public RateLimitedProvider(long outageMillis, double perSecond, int burst, int retryAfterSeconds) {
		this(outageMillis, retryAfterSeconds, perSecond, burst, retryAfterSeconds);
	}

	/**
	 * A provider whose outage answers {@code 503 Retry-After: outageRetryAfterSeconds} and whose rate limit answers
	 * {@code 429 Retry-After: retryAfterSeconds}.
	 */
	public RateLimitedProvider(long outageMillis, int outageRetryAfterSeconds, double perSecond, int burst,
			int retryAfterSeconds) {
		this(outageMillis, outageRetryAfterSeconds, perSecond, burst, retryAfterSeconds, null);
	}

	/**
	 * A provider as above whose refusals name their instant as an HTTP-date: its {@code Date} (which the JDK's server
	 * writes on true time, in whole seconds) plus the hint, at most a second earlier than the delay-seconds instant
	 * would be. To try a client whose clock is off, offset the client's wall clock.
	 */
	public static RateLimitedProvider withHttpDates(long outageMillis, int outageRetryAfterSeconds, double perSecond,
			int burst, int retryAfterSeconds) {
		return new RateLimitedProvider(outageMillis, outageRetryAfterSeconds, perSecond, burst, retryAfterSeconds,
				java.time.Duration.ZERO);
	}

	private RateLimitedProvider(long outageMillis, int outageRetryAfterSeconds, double perSecond, int burst,
			int retryAfterSeconds, java.time.Duration clockOffset) {
		this.clockOffset = clockOffset;
		this.outageRetryAfterSeconds = outageRetryAfterSeconds;
		this.outageNanos = TimeUnit.MILLISECONDS.toNanos(outageMillis);
		this.perSecond = perSecond;
		this.burst = burst;
		this.retryAfterSeconds = retryAfterSeconds;
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	public URI uri(String path) {
		return URI.create("http://" + this.server.getAddress().getHostString() + ":" + this.server.getAddress().getPort()
				+ path);
	}

	/** Requests received, every attempt counted. */
	public int requests() {
		return this.requests.get();
	}

	/** Requests answered 200. */
	public int successes() {
		return this.successes.get();
	}

	/** When the first request arrived, on {@link System#nanoTime()}; the outage starts then. */
	public synchronized long firstRequestNanos() {
		return this.firstRequest;
	}

	/**
	 * The first instant a refusal named at or after the end of the outage, nanos after the first request: nobody who
	 * honours every hint succeeds before it. {@code Long.MAX_VALUE} if none did.
	 */
	public synchronized long earliestReturnNanos() {
		return this.returnNamed ? this.earliestReturn - this.firstRequest : Long.MAX_VALUE;
	}

	private synchronized void recordNamed(long named) {
		if (named - (this.firstRequest + this.outageNanos) >= 0 && (!this.returnNamed || named - this.earliestReturn < 0)) {
			this.earliestReturn = named;
			this.returnNamed = true;
		}
	}

	/** When each success arrived, nanos after the first request, in arrival order. */
	public java.util.List<Long> completionNanos() {
		return java.util.List.copyOf(this.completions);
	}

	/**
	 * The answers per {@code bucketMillis} after the first request, one line a bucket: its start, then how many
	 * requests were answered 200, 429 and 503 in it.
	 */
	public String timeline(long bucketMillis) {
		java.util.TreeMap<Long, int[]> buckets = new java.util.TreeMap<>();
		for (long[] answer : this.answers) {
			int[] counts = buckets.computeIfAbsent(answer[0] / (bucketMillis * 1_000_000L), (key) -> new int[3]);
			counts[(answer[1] == 200) ? 0 : (answer[1] == 429) ? 1 : 2]++;
		}
		StringBuilder lines = new StringBuilder();
		buckets.forEach((bucket, counts) -> lines.append(String.format("%6d ms  200:%4d  429:%4d  503:%4d%n",
				bucket * bucketMillis, counts[0], counts[1], counts[2])));
		return lines.toString();
	}

	/**
	 * When each operation's first attempt arrived (the first request naming it in the {@code X-Operation} header),
	 * nanos after the first request, in no particular order.
	 */
	public java.util.List<Long> firstAttemptNanos() {
		return java.util.List.copyOf(this.firstAttempts.values());
	}

	/** When the first refusal (503 or 429) was answered, nanos after the first request; -1 if none was. */
	public synchronized long firstRefusalNanos() {
		return this.firstRefusal;
	}

	/** The instant the first refusal named, nanos after the first request; -1 if none was answered. */
	public synchronized long firstRefusalNamedNanos() {
		return this.firstRefusalNamed;
	}

	private synchronized void recordRefusal(long at, long named) {
		if (this.firstRefusal < 0) {
			this.firstRefusal = at - this.firstRequest;
			this.firstRefusalNamed = named - this.firstRequest;
		}
	}

	/** Requests that arrived before the instant a previous refusal of the same operation named. */
	public int earlyArrivals() {
		return this.early.get();
	}

	/**
	 * Answers each outage refusal ({@code 503}) this long after it arrived, without holding a server thread: a
	 * provider slow to refuse, so that every first attempt of a burst reaches it before the first refusal reaches any
	 * client and no gate can close in time (issue 31's unlucky runs, made certain).
	 * @param delay how long to hold each 503
	 * @return this provider
	 */
	public RateLimitedProvider refusingSlowly(java.time.Duration delay) {
		this.refusalDelayNanos = delay.toNanos();
		return this;
	}

	private void handle(HttpExchange exchange) throws IOException {
		if (this.refusalDelayNanos > 0 && outage(System.nanoTime())) {
			// decided now, sent later: the instant the refusal names counts from its arrival as before
			long arrived = System.nanoTime();
			this.delayer.schedule(() -> {
				try {
					answer(exchange, arrived);
				}
				catch (IOException ex) {
					// the client went away: nothing to answer
				}
			}, this.refusalDelayNanos, TimeUnit.NANOSECONDS);
			return;
		}
		answer(exchange, System.nanoTime());
	}

	private synchronized boolean outage(long now) {
		return !this.started || now - (this.firstRequest + this.outageNanos) < 0;
	}

	private void answer(HttpExchange exchange, long now) throws IOException {
		try (exchange) {
			this.requests.incrementAndGet();
			String operation = exchange.getRequestHeaders().getFirst(OPERATION);
			Long due = (operation != null) ? this.notBefore.get(operation) : null;
			if (due != null && now - due < 0) {
				this.early.incrementAndGet();
			}
			int status = admit(now);
			this.answers.add(new long[] { now - firstRequestNanos(), status });
			if (operation != null) {
				this.firstAttempts.putIfAbsent(operation, now - firstRequestNanos());
			}
			byte[] body = ((status == 200) ? "ok" : "later").getBytes(StandardCharsets.UTF_8);
			if (status != 200) {
				int hint = (status == 503) ? this.outageRetryAfterSeconds : this.retryAfterSeconds;
				long named = now + hint * SECOND;
				if (this.clockOffset == null) {
					exchange.getResponseHeaders().set("Retry-After", Integer.toString(hint));
				}
				else {
					// this server's clock, in whole seconds: Date, and Retry-After as Date plus the hint
					long serverNanos = this.wallAtStartNanos + (now - this.tickerAtStart) + this.clockOffset.toNanos();
					long dateSecond = Math.floorDiv(serverNanos, SECOND);
					exchange.getResponseHeaders().set("Date", httpDate(dateSecond));
					exchange.getResponseHeaders().set("Retry-After", httpDate(dateSecond + hint));
					named = now - Math.floorMod(serverNanos, SECOND) + hint * SECOND;
				}
				if (operation != null) {
					// the instant the refusal names, on this clock
					this.notBefore.merge(operation, named, Math::max);
				}
				recordNamed(named);
				recordRefusal(now, named);
			}
			else {
				this.successes.incrementAndGet();
				this.completions.add(now - firstRequestNanos());
			}
			exchange.sendResponseHeaders(status, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		}
	}

	// IMF-fixdate: a two-digit day, unlike RFC_1123_DATE_TIME, which writes "1 Dec" and is refused by the planner
	private static final java.time.format.DateTimeFormatter HTTP_DATE = java.time.format.DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US)
		.withZone(java.time.ZoneOffset.UTC);

	private static String httpDate(long epochSecond) {
		return HTTP_DATE.format(java.time.Instant.ofEpochSecond(epochSecond));
	}

	private synchronized int admit(long now) {
		if (!this.started) {
			this.started = true;
			this.firstRequest = now;
		}
		long outageEnd = this.firstRequest + this.outageNanos;
		if (now - outageEnd < 0) {
			return 503;
		}
		if (!this.refilling) {
			this.refilling = true;
			this.refilledAt = outageEnd;
			this.tokens = this.burst;
		}
		this.tokens = Math.min(this.burst, this.tokens + (now - this.refilledAt) * this.perSecond / SECOND);
		this.refilledAt = now;
		if (this.tokens < 1) {
			return 429;
		}
		this.tokens -= 1;
		return 200;
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
		this.delayer.shutdownNow();
	}

}

package io.github.retryafter.sample;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.retryafter.sample.ProviderConditions.RetryAfterForm;

/**
 * The flaky provider the scenarios call: an outage window during which every request gets {@code 503} (or
 * {@code 429}) with {@code Retry-After}, a token-bucket rate limit whose excess gets {@code 429} with
 * {@code Retry-After: 1}, and a {@code Date} header from its own clock, which can be set off the real time. It records
 * every arrival, telling first attempts from retries by counting arrivals per {@code Idempotency-Key}.
 * <p>
 * All time comes from the injected {@link InstantSource}, so a test with a fixed clock gets exact answers. Thread-safe.
 */
public class SimulatedProvider {

	/** IMF-fixdate, the preferred HTTP-date form (RFC 9110 §5.6.7). */
	static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final InstantSource clock;

	private volatile Run run;

	/**
	 * Creates a healthy provider whose clock is off by {@code clockSkew}.
	 * @param clock the real time
	 * @param clockSkew how far the provider's own clock is off, until a scenario sets its own
	 */
	public SimulatedProvider(InstantSource clock, Duration clockSkew) {
		this.clock = Objects.requireNonNull(clock, "clock");
		this.run = new Run(ProviderConditions.HEALTHY.withClockSkew(clockSkew), clock.instant());
	}

	/**
	 * Starts a new scenario: applies {@code conditions} from now on and forgets the arrivals recorded so far.
	 * @param conditions how to behave
	 */
	public void start(ProviderConditions conditions) {
		this.run = new Run(Objects.requireNonNull(conditions, "conditions"), this.clock.instant());
	}

	/**
	 * Returns the conditions in force.
	 * @return the conditions
	 */
	public ProviderConditions conditions() {
		return this.run.conditions;
	}

	/**
	 * Answers one request to the stateful resource and records its arrival.
	 * @param operationId the request's {@code Idempotency-Key}, or {@code null}
	 * @return the answer
	 */
	public Answer handle(String operationId) {
		Run current = this.run;
		Instant now = this.clock.instant();
		ProviderConditions conditions = current.conditions;
		int status;
		Duration retryAfter = null;
		Duration hold = Duration.ZERO;
		RetryAfterForm form = conditions.form();
		Instant outageEnd = current.startedAt.plus(conditions.outage());
		if (now.isBefore(outageEnd)) {
			status = conditions.outageStatus();
			retryAfter = conditions.retryAfter();
			if (conditions.holdDuringOutage()) {
				hold = Duration.between(now, outageEnd);
			}
		}
		else if (!current.admit(now)) {
			status = 429;
			retryAfter = Duration.ofSeconds(1);
			form = RetryAfterForm.DELAY_SECONDS;
		}
		else {
			status = 200;
		}
		String key = (operationId != null) ? operationId : "anonymous";
		int attempt = (operationId != null)
				? current.perOperation.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet() : 1;
		current.arrivals.add(new Arrival(Duration.between(current.startedAt, now).toMillis(), key, attempt, status));
		return answer(status, now.plus(hold), conditions.clockSkew(), retryAfter, form).held(hold)
			.window(current.window(now));
	}

	/**
	 * Answers with a given status, without state: what a caller exploring the headers by hand wants.
	 * @param status the status to answer
	 * @param retryAfter the wait to announce, or {@code null} for no {@code Retry-After}
	 * @param form how to write it
	 * @param clockSkew how far this answer's {@code Date} is off the real time
	 * @return the answer
	 */
	public Answer answer(int status, Duration retryAfter, RetryAfterForm form, Duration clockSkew) {
		return answer(status, this.clock.instant(), clockSkew, retryAfter, form);
	}

	private static Answer answer(int status, Instant now, Duration clockSkew, Duration retryAfter, RetryAfterForm form) {
		Instant providerNow = now.plus(clockSkew).truncatedTo(ChronoUnit.SECONDS);
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("Date", HTTP_DATE.format(providerNow));
		if (retryAfter != null) {
			headers.put("Retry-After", (form == RetryAfterForm.HTTP_DATE) ? HTTP_DATE.format(providerNow.plus(retryAfter))
					: Long.toString(retryAfter.toSeconds()));
		}
		return new Answer(status, headers);
	}

	/**
	 * Returns the arrivals of the current scenario, in order of arrival time.
	 * @return a copy of the arrivals
	 */
	public List<Arrival> arrivals() {
		List<Arrival> copy = new ArrayList<>(this.run.arrivals);
		copy.sort(Comparator.comparingLong(Arrival::atMillis));
		return copy;
	}

	/**
	 * An answer: a status, the headers to send with it, and how long to hold it before sending.
	 *
	 * @param status the status
	 * @param headers the headers, {@code Date} always among them, dated when the answer is to be sent
	 * @param hold how long to hold the answer; zero to send it at once
	 * @param window the rate limit's state after this request, or {@code null} without a rate limit
	 */
	public record Answer(int status, Map<String, String> headers, Duration hold, Window window) {

		Answer(int status, Map<String, String> headers) {
			this(status, headers, Duration.ZERO, null);
		}

		Answer held(Duration hold) {
			return new Answer(this.status, this.headers, hold, this.window);
		}

		Answer window(Window window) {
			return new Answer(this.status, this.headers, this.hold, window);
		}

	}

	/**
	 * The rate limit's state after a request, as an API that announces its request window says it (OpenAI's
	 * {@code x-ratelimit-*-requests}).
	 *
	 * @param limit the requests the window holds
	 * @param remaining the requests left in it now
	 * @param reset how long until it is full again
	 */
	public record Window(int limit, int remaining, Duration reset) {

	}

	/**
	 * The state of one scenario.
	 */
	private static final class Run {

		final ProviderConditions conditions;

		final Instant startedAt;

		final ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

		final Map<String, AtomicInteger> perOperation = new ConcurrentHashMap<>();

		private double tokens;

		private Instant refilledAt;

		Run(ProviderConditions conditions, Instant startedAt) {
			this.conditions = conditions;
			this.startedAt = startedAt;
			this.tokens = conditions.rateLimitPerSecond();
			this.refilledAt = startedAt;
		}

		/** The token bucket's state as a request window, or {@code null} without a rate limit. */
		synchronized Window window(Instant now) {
			int rate = this.conditions.rateLimitPerSecond();
			if (rate == 0) {
				return null;
			}
			double missing = rate - this.tokens;
			return new Window(rate, (int) Math.floor(this.tokens),
					Duration.ofMillis((long) Math.ceil(missing * 1000 / rate)));
		}

		synchronized boolean admit(Instant now) {
			int rate = this.conditions.rateLimitPerSecond();
			if (rate == 0) {
				return true;
			}
			if (now.isAfter(this.refilledAt)) {
				double seconds = Duration.between(this.refilledAt, now).toNanos() / 1e9;
				this.tokens = Math.min(rate, this.tokens + seconds * rate);
				this.refilledAt = now;
			}
			if (this.tokens >= 1) {
				this.tokens -= 1;
				return true;
			}
			return false;
		}

	}

}

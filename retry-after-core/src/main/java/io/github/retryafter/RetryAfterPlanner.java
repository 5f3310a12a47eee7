package io.github.retryafter;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.internal.HttpDate;
import io.github.retryafter.internal.KeyedPosition;
import io.github.retryafter.internal.RetryAfterField;

/**
 * Turns a response's {@code Retry-After} into a {@link RetryPlan}: parsed strictly, measured skew-free against the
 * response's own {@code Date}, corrected for the response's age, jittered only above the server's floor, and held as a
 * deadline on the monotonic {@link Ticker}.
 * <p>
 * Immutable and thread-safe (as long as its {@link RandomSource} is). Build with {@link #builder()}.
 * <p>
 * How the numbers are made:
 * <ul>
 * <li><b>HTTP-date</b>: {@code instructed = Retry-After − Date}, both the server's own instants, so the client's clock
 * never enters. A date up to one second before {@code Date} is a zero wait; more than one second before is
 * {@link RetryAfterError#STALE_DATE}. An RFC 850 two-digit year is judged against {@code Date} (against the client's
 * wall clock when {@code Date} is unusable, which only matters for the error then reported).</li>
 * <li><b>Age</b>: the {@code Age} field (delta-seconds; anything else, including two {@code Age} fields, is ignored and
 * reported as {@link RetryPlan#ageIgnored()}) plus the round trip when both instants are given.</li>
 * <li><b>Rounding</b>: everything is held in whole milliseconds and rounded so the floor is never shorter than what
 * the server asked for: the round trip is rounded down (so the floor is rounded up), and with
 * {@link OnMissingDate#TRUST_CLIENT_CLOCK} the client's wall clock is truncated (so the wait is rounded up). The spread
 * and the jitter, which are ours, are rounded down; the jitter stays strictly below a non-zero spread.</li>
 * <li><b>Clamping</b>: a negative floor (age larger than the instruction, or a date at most one second stale) becomes
 * zero with {@link RetryPlan#clampedToZero()} set; {@link RetryPlan#instructed()} is never negative.</li>
 * <li><b>maxWait</b> refuses a floor above it with {@link RetryAfterError#TOO_LONG} and trims the jitter so the wait
 * never exceeds it.</li>
 * <li><b>Clocks</b>: the ticker and the wall clock are each read once per plan. The wall clock at receipt is the wall
 * clock now, wound back by the ticker time elapsed since {@link PlanRequest#responseReceivedNanos()} when that is
 * given; {@link RetryPlan#skew()} is {@code Date} minus it, and {@link RetryPlan#estimatedWallAt()} is it plus the
 * wait.</li>
 * <li><b>Error order</b>: the field's own errors ({@code EMPTY} to {@code DAY_NAME_MISMATCH}), then the {@code Date}
 * header ({@code MISSING_DATE_HEADER}, {@code MALFORMED_DATE_HEADER}), {@code STALE_DATE},
 * {@code HALF_MEASURED_ROUND_TRIP} (checked only once there is an instruction, since the age it feeds is taken off the
 * floor), {@code TOO_LONG}, and last {@code INVALID_RANDOM}. With delay-seconds a bad or missing {@code Date} only
 * leaves the skew empty.</li>
 * </ul>
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3">RFC 9110 §10.2.3</a>
 */
public final class RetryAfterPlanner {

	private final PlannerOptions options;

	private final RandomSource random;

	private final Ticker ticker;

	private final InstantSource wallClock;

	private RetryAfterPlanner(Builder builder) {
		this.options = builder.options;
		this.random = builder.random;
		this.ticker = builder.ticker;
		this.wallClock = builder.wallClock;
	}

	/**
	 * Returns a builder with the default options, the thread-local random source and the system clocks.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the options this planner was built with.
	 * @return the options
	 */
	public PlannerOptions options() {
		return this.options;
	}

	/**
	 * Returns the monotonic clock this planner's deadlines are on.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	/**
	 * Plans the wait for the first attempt's response, received now, with no jitter key.
	 * @param headers the response's header fields
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 */
	public Optional<RetryPlan> plan(HeaderSource headers) {
		return plan(headers, PlanRequest.forAttempt(1));
	}

	/**
	 * Plans the wait for one response.
	 * @param headers the response's header fields
	 * @param request the attempt number, jitter key and optional round-trip instants
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 */
	public Optional<RetryPlan> plan(HeaderSource headers, PlanRequest request) {
		Objects.requireNonNull(headers, "headers");
		Objects.requireNonNull(request, "request");
		List<String> retryAfter = headers.values("Retry-After");
		if (retryAfter.isEmpty()) {
			return Optional.empty();
		}
		RetryAfterField.requireSingle(retryAfter);
		String raw = retryAfter.get(0);
		int start = RetryAfterField.trimStart(raw);
		int end = RetryAfterField.trimEnd(raw, start);
		long delaySeconds = RetryAfterField.delaySeconds(raw, start, end);

		// One reading of each clock; the wall clock is wound back to the moment of receipt when that is known.
		long tickerNow = this.ticker.read();
		long receivedNanos = request.responseReceivedNanos().orElse(tickerNow);
		Instant wallAtReceipt = this.wallClock.instant();
		long sinceReceipt = tickerNow - receivedNanos;
		if (sinceReceipt > 0) {
			wallAtReceipt = wallAtReceipt.minusNanos(sinceReceipt);
		}
		long wallAtReceiptMillis = wallAtReceipt.toEpochMilli();

		// The response's own Date: parsed in both forms (for skew), required only by the HTTP-date form.
		List<String> dateValues = headers.values("Date");
		boolean hasDate = false;
		long dateEpochSecond = 0;
		String dateProblem = null;
		if (dateValues.size() > 1) {
			dateProblem = "appears " + dateValues.size() + " times";
		}
		else if (dateValues.size() == 1) {
			String date = dateValues.get(0);
			int dateStart = RetryAfterField.trimStart(date);
			int dateEnd = RetryAfterField.trimEnd(date, dateStart);
			if (dateStart == dateEnd) {
				dateProblem = "is empty";
			}
			else {
				try {
					dateEpochSecond = HttpDate.parse("Date", date, dateStart, dateEnd,
							Math.floorDiv(wallAtReceiptMillis, 1000));
					hasDate = true;
				}
				catch (RetryAfterException ex) {
					dateProblem = "fails the same strict parse (" + ex.getMessage() + ")";
				}
			}
		}

		PlanSource source;
		long instructedMillis;
		if (delaySeconds != RetryAfterField.DATE_FORM) {
			source = PlanSource.DELAY_SECONDS;
			instructedMillis = saturatedMultiply(delaySeconds, 1000);
		}
		else {
			long reference = hasDate ? dateEpochSecond : Math.floorDiv(wallAtReceiptMillis, 1000);
			long retryAt = HttpDate.parse("Retry-After", raw, start, end, reference);
			if (dateProblem != null) {
				throw new RetryAfterException(RetryAfterError.MALFORMED_DATE_HEADER, "Retry-After was sent as an"
						+ " HTTP-date (\"" + raw.substring(start, end) + "\") but the response's Date header "
						+ dateProblem + ", so there is no trustworthy record of what the server thought the time was,"
						+ " and the wait cannot be measured in the server's frame. Ask the origin to send exactly one"
						+ " valid Date header in IMF-fixdate form (RFC 9110 §6.6.1), or delay-seconds instead of a date.");
			}
			if (hasDate) {
				source = PlanSource.HTTP_DATE;
				long difference = retryAt - dateEpochSecond;
				if (difference < -1) {
					throw new RetryAfterException(RetryAfterError.STALE_DATE, "Retry-After \""
							+ raw.substring(start, end) + "\" is " + (-difference) + " s before the response's own Date (\""
							+ HttpDate.format(dateEpochSecond) + "\"). A date in the past would become an immediate retry:"
							+ " a hot loop against a service that is already refusing requests. The origin is computing"
							+ " its Retry-After wrongly (or caching it); ask it to send a future date or delay-seconds.");
				}
				instructedMillis = difference * 1000;
			}
			else if (this.options.onMissingDate() == OnMissingDate.TRUST_CLIENT_CLOCK) {
				source = PlanSource.HTTP_DATE_CLIENT_CLOCK;
				// The wall clock is truncated to the millisecond, so the instructed wait is rounded up, never down.
				instructedMillis = saturatedSubtract(saturatedMultiply(retryAt, 1000), wallAtReceiptMillis);
			}
			else {
				throw new RetryAfterException(RetryAfterError.MISSING_DATE_HEADER, "Retry-After was sent as an"
						+ " HTTP-date (\"" + raw.substring(start, end) + "\") but the response carried no Date header, so"
						+ " there is no record of what the server thought the time was. Subtracting the client clock"
						+ " instead makes the wait wrong by the full amount of any skew: a client running forty seconds"
						+ " fast computes a wait of zero and retries straight back into the limiter. Ask the origin to"
						+ " send a Date header, which RFC 9110 requires on responses like this one, or set onMissingDate"
						+ " to TRUST_CLIENT_CLOCK to accept the error explicitly.");
			}
		}

		// Age: the Age field plus the measured round trip, both durations of clocks that cancel the client's offset.
		if (request.requestSentNanos().isPresent() != request.responseReceivedNanos().isPresent()) {
			throw new RetryAfterException(RetryAfterError.HALF_MEASURED_ROUND_TRIP, "Only the "
					+ (request.requestSentNanos().isPresent() ? "request-sent" : "response-received") + " instant was"
					+ " given, so the round trip is half measured and the response's age would be wrong by an unknown"
					+ " amount. Pass both instants (PlanRequest.withRoundTrip(sent, received)) or neither.");
		}
		long ageMillis = 0;
		boolean ageIgnored = false;
		List<String> ageValues = headers.values("Age");
		if (ageValues.size() == 1) {
			long ageSeconds = RetryAfterField.deltaSeconds(ageValues.get(0));
			if (ageSeconds < 0) {
				ageIgnored = true;
			}
			else {
				ageMillis = saturatedMultiply(ageSeconds, 1000);
			}
		}
		else if (ageValues.size() > 1) {
			ageIgnored = true;
		}
		if (request.requestSentNanos().isPresent()) {
			long roundTrip = receivedNanos - request.requestSentNanos().getAsLong();
			if (roundTrip < 0) {
				throw new IllegalArgumentException("the response was received (" + receivedNanos
						+ " ns) before the request was sent (" + request.requestSentNanos().getAsLong()
						+ " ns); both instants must be readings of the planner's ticker");
			}
			// Rounded down, so the floor it is taken from is rounded up.
			ageMillis = saturatedAdd(ageMillis, roundTrip / 1_000_000);
		}

		long floorMillis = saturatedSubtract(instructedMillis, ageMillis);
		boolean clampedToZero = floorMillis < 0;
		if (clampedToZero) {
			floorMillis = 0;
		}
		long instructedReported = Math.max(0, instructedMillis);
		Optional<Duration> maxWait = this.options.maxWait();
		long maxWaitMillis = Long.MAX_VALUE;
		if (maxWait.isPresent()) {
			maxWaitMillis = saturatedMillis(maxWait.get());
			if (Duration.ofMillis(floorMillis).compareTo(maxWait.get()) > 0) {
				throw new RetryAfterException(RetryAfterError.TOO_LONG, "Retry-After \"" + raw.substring(start, end)
						+ "\" asks for at least " + floorMillis + " ms (" + instructedReported + " ms instructed, "
						+ ageMillis + " ms of age taken off) but maxWait is " + maxWaitMillis + " ms. The wait is refused"
						+ " rather than shortened, because retrying earlier than the server said is the failure this"
						+ " library exists to prevent. Stop retrying this operation, or raise maxWait if waiting that long"
						+ " is acceptable.");
			}
		}

		long spreadMillis = spread(floorMillis);
		long jitterMillis = jitter(request, spreadMillis);
		long waitMillis = saturatedAdd(floorMillis, jitterMillis);
		if (waitMillis > maxWaitMillis) {
			waitMillis = maxWaitMillis;
			jitterMillis = waitMillis - floorMillis;
		}

		Optional<Duration> skew = hasDate
				? Optional.of(Duration.ofMillis(saturatedSubtract(dateEpochSecond * 1000, wallAtReceiptMillis)))
				: Optional.empty();
		long deadline = saturatedAdd(receivedNanos, saturatedMultiply(waitMillis, 1_000_000));
		Duration waitTime = Duration.ofMillis(waitMillis);
		return Optional.of(new RetryPlan(waitTime, Duration.ofMillis(floorMillis), Duration.ofMillis(jitterMillis),
				Duration.ofMillis(spreadMillis), source, Duration.ofMillis(instructedReported),
				Duration.ofMillis(ageMillis), ageIgnored, skew, clampedToZero, deadline, estimate(wallAtReceipt,
						waitTime)));
	}

	/** {@code clamp(floor × ratio, minSpread, maxSpread)}, rounded down to the millisecond. */
	private long spread(long floorMillis) {
		long min = saturatedMillis(this.options.minSpread());
		long max = saturatedMillis(this.options.maxSpread());
		double scaled = Math.floor(floorMillis * this.options.spreadRatio());
		if (scaled <= min) {
			return min;
		}
		return (scaled >= max) ? max : (long) scaled;
	}

	/** A position in {@code [0, spread)}, rounded down to the millisecond. */
	private long jitter(PlanRequest request, long spreadMillis) {
		double position;
		switch (this.options.jitter()) {
			case NONE:
				return 0;
			case KEYED:
				if (request.jitterKey().isPresent()) {
					position = KeyedPosition.of(request.jitterKey().get(), request.attempt());
					break;
				}
				position = draw();
				break;
			default:
				position = draw();
		}
		if (spreadMillis == 0) {
			return 0;
		}
		// position < 1, but position × spread can round up to spread in floating point: stay strictly below it.
		return Math.min((long) (position * spreadMillis), spreadMillis - 1);
	}

	private double draw() {
		double value = this.random.nextDouble();
		if (!(value >= 0 && value < 1)) {
			throw new RetryAfterException(RetryAfterError.INVALID_RANDOM, "The RandomSource returned " + value
					+ ", but draws must be in [0, 1); a draw outside it would become a strange or immediate retry."
					+ " Fix the RandomSource given to the planner (or use RandomSource.threadLocal()).");
		}
		return value;
	}

	private static Instant estimate(Instant wallAtReceipt, Duration wait) {
		try {
			return wallAtReceipt.plus(wait);
		}
		catch (ArithmeticException | DateTimeException ex) {
			return Instant.MAX;
		}
	}

	private static long saturatedMillis(Duration duration) {
		try {
			return duration.toMillis();
		}
		catch (ArithmeticException ex) {
			return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

	private static long saturatedMultiply(long value, long factor) {
		long high = Math.multiplyHigh(value, factor);
		long low = value * factor;
		if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
			return low;
		}
		return (high < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
	}

	private static long saturatedAdd(long a, long b) {
		long sum = a + b;
		if (((a ^ sum) & (b ^ sum)) < 0) {
			return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
		return sum;
	}

	private static long saturatedSubtract(long a, long b) {
		long difference = a - b;
		if (((a ^ b) & (a ^ difference)) < 0) {
			return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
		return difference;
	}

	/**
	 * Builds a {@link RetryAfterPlanner}. Not thread-safe.
	 */
	public static final class Builder {

		private PlannerOptions options = PlannerOptions.DEFAULTS;

		private RandomSource random = RandomSource.threadLocal();

		private Ticker ticker = Ticker.system();

		private InstantSource wallClock = InstantSource.system();

		private Builder() {
		}

		/**
		 * Sets the options.
		 * @param options the options
		 * @return this builder
		 */
		public Builder options(PlannerOptions options) {
			this.options = Objects.requireNonNull(options, "options");
			return this;
		}

		/**
		 * Sets the random source used by {@link JitterMode#RANDOM}.
		 * @param random the source
		 * @return this builder
		 */
		public Builder random(RandomSource random) {
			this.random = Objects.requireNonNull(random, "random");
			return this;
		}

		/**
		 * Sets the monotonic clock deadlines are held on.
		 * @param ticker the ticker
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets the client's wall clock, read only to report skew, to estimate {@link RetryPlan#estimatedWallAt()} and
		 * for {@link OnMissingDate#TRUST_CLIENT_CLOCK}.
		 * @param wallClock the wall clock
		 * @return this builder
		 */
		public Builder wallClock(InstantSource wallClock) {
			this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
			return this;
		}

		/**
		 * Builds the planner.
		 * @return the planner
		 */
		public RetryAfterPlanner build() {
			return new RetryAfterPlanner(this);
		}

	}

}

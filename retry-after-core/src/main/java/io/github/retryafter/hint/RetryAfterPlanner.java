package io.github.retryafter.hint;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.JitterMode;
import io.github.retryafter.OnMissingDate;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.PlanSource;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.Ticker;
import io.github.retryafter.hint.ServerDate.Receipt;
import io.github.retryafter.internal.FieldText;
import io.github.retryafter.internal.Saturating;

/**
 * Turns a response's {@code Retry-After} into a {@link RetryPlan}: parsed strictly, measured skew-free against the
 * response's own {@code Date}, corrected for the response's age, jittered only above the server's floor, and held as a
 * deadline on the monotonic {@link Ticker}. It reads a response through its {@link ResponseHints}, so planning the
 * same response twice (the engine's gate and the operation) reads and parses each field once.
 * <p>
 * Immutable and thread-safe (as long as its {@link RandomSource} is). Build with {@link #builder()}.
 * <p>
 * How the numbers are made:
 * <ul>
 * <li><b>HTTP-date</b>: {@code instructed = Retry-After − Date}, both the server's own instants, so the client's clock
 * never enters. A date up to one second before {@code Date} is a zero wait; more than one second before is
 * {@link RetryAfterError#STALE_DATE}. An RFC 850 two-digit year is judged against {@code Date} (against the client's
 * wall clock when {@code Date} is unusable, which only matters for the error then reported).</li>
 * <li><b>Millisecond fields</b>: when {@link PlannerOptions#fields()} reads them, {@code retry-after-ms} and
 * {@code x-ms-retry-after-ms} are read beside {@code Retry-After} (milliseconds from receipt, like delay-seconds), and
 * so is Google's {@code RetryInfo.retryDelay} in a refusal's body;
 * the longest instruction, the later instant, wins and {@link RetryPlan#passedOver()} reports the others (a refused
 * one included). Only when every wait field present is refused is the first refusal thrown.</li>
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

	private final AboveTheFloor aboveTheFloor;

	private RetryAfterPlanner(Builder builder) {
		this.options = builder.options;
		this.random = builder.random;
		this.ticker = builder.ticker;
		this.wallClock = builder.wallClock;
		this.aboveTheFloor = new AboveTheFloor(builder.options, builder.random);
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
	 * Returns the random source {@link JitterMode#RANDOM} draws from.
	 * @return the random source
	 */
	public RandomSource random() {
		return this.random;
	}

	/**
	 * Returns the client's wall clock, read only to report skew, to estimate {@link RetryPlan#estimatedWallAt()} and
	 * for {@link OnMissingDate#TRUST_CLIENT_CLOCK}.
	 * @return the wall clock
	 */
	public InstantSource wallClock() {
		return this.wallClock;
	}

	/**
	 * Plans the wait for the first attempt's response, received now, with no jitter key.
	 * @param headers the response's header fields
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 */
	public Optional<RetryPlan> plan(HeaderSource headers) {
		return plan(ResponseHints.of(headers), PlanRequest.forAttempt(1));
	}

	/**
	 * Plans the wait for one response given as header fields; the same as {@link #plan(ResponseHints, PlanRequest)}
	 * over {@link ResponseHints#of(HeaderSource) its hints}.
	 * @param headers the response's header fields
	 * @param request the attempt number, jitter key and optional round-trip instants
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 * @throws IllegalArgumentException when the request's round trip ends before it starts
	 */
	public Optional<RetryPlan> plan(HeaderSource headers, PlanRequest request) {
		Objects.requireNonNull(headers, "headers");
		return plan(ResponseHints.of(headers), request);
	}

	/**
	 * Plans the wait for one response, in the steps the class description lists: parse the field, measure the
	 * instruction in the server's frame, take the response's age off, refuse a floor above the max wait, draw the
	 * jitter above the floor, and hold the wait as a deadline on the monotonic clock. Every duration saturates: no
	 * header value, clock reading or option makes it throw anything but the documented exceptions.
	 * @param hints the response's hint fields, read and parsed at most once however often it is planned
	 * @param request the attempt number, jitter key and optional round-trip instants
	 * @return the plan, or empty when the response has no {@code Retry-After} field (the server gave no instruction)
	 * @throws RetryAfterException when the field (or the {@code Date} it needs) is unusable, or the wait is too long
	 * @throws IllegalArgumentException when the request's round trip ends before it starts
	 */
	public Optional<RetryPlan> plan(ResponseHints hints, PlanRequest request) {
		Objects.requireNonNull(hints, "hints");
		Objects.requireNonNull(request, "request");
		if (!hints.hasWaitField(this.options.fields())) {
			return Optional.empty();
		}
		Receipt receipt = receipt(request);
		ServerDate date = ServerDate.read(hints, receipt);
		Choice choice = choose(hints, date, receipt);
		Instruction instruction = choice.instruction();
		requireWholeRoundTrip(request);
		Age age = age(hints.age(), request, receipt);
		long floorMillis = Saturating.subtract(instruction.millis(), age.millis());
		boolean clampedToZero = floorMillis < 0;
		floorMillis = Math.max(0, floorMillis);
		long maxWaitMillis = this.aboveTheFloor.requireWithinMaxWait(floorMillis, instruction.label(),
				instruction.reported(), age.millis());
		long spreadMillis = this.aboveTheFloor.spread(floorMillis);
		long waitMillis = Math.min(Saturating.add(floorMillis, this.aboveTheFloor.jitter(request, spreadMillis)),
				maxWaitMillis);
		Duration waitTime = Duration.ofMillis(waitMillis);
		return Optional.of(new RetryPlan(waitTime, Duration.ofMillis(floorMillis),
				Duration.ofMillis(waitMillis - floorMillis), Duration.ofMillis(spreadMillis), instruction.source(),
				Duration.ofMillis(instruction.reported()), Duration.ofMillis(age.millis()), age.ignored(),
				date.skewFrom(receipt), clampedToZero,
				Saturating.add(receipt.nanos(), Saturating.multiply(waitMillis, 1_000_000)),
				Saturating.plus(receipt.wall(), waitTime), choice.passedOver()));
	}

	/**
	 * Plans the wait until an instant another retry layer handed on ({@code NotBefore}: an inner layer read the
	 * provider's field, measured it skew-free, gave up and named the instant), with the same rules as a field: a floor
	 * above the max wait is refused ({@link RetryAfterError#TOO_LONG}), the jitter is drawn above the floor, and the wait
	 * is held as a deadline on the ticker. The instant is on the wall clock both layers read, so the floor is the time
	 * from this planner's wall clock to it, rounded up to the millisecond; an instant already passed is a zero floor
	 * ({@link RetryPlan#clampedToZero()}). It is not a field, so {@link PlannerOptions#fields()} does not filter it:
	 * a provider whose fields leave out {@code Retry-After} still waits for it.
	 * @param notBefore the instant the provider named, on the wall clock
	 * @param request the attempt number and jitter key (a round trip given is ignored: the instant has no age)
	 * @return the plan, with {@link PlanSource#HANDED_ON}
	 * @throws RetryAfterException {@code TOO_LONG} when the floor is above the max wait; {@code INVALID_RANDOM}
	 */
	public RetryPlan planUntil(Instant notBefore, PlanRequest request) {
		Objects.requireNonNull(notBefore, "notBefore");
		Objects.requireNonNull(request, "request");
		long nowNanos = this.ticker.read();
		Instant wall = this.wallClock.instant();
		long instructedMillis = Saturating.toMillis(Duration.between(wall, notBefore).plusNanos(999_999));
		boolean clampedToZero = instructedMillis < 0;
		long floorMillis = Math.max(0, instructedMillis);
		long maxWaitMillis = this.aboveTheFloor.requireWithinMaxWait(floorMillis,
				"The instant an inner retry layer handed on (" + notBefore + ")", floorMillis, 0);
		long spreadMillis = this.aboveTheFloor.spread(floorMillis);
		long waitMillis = Math.min(Saturating.add(floorMillis, this.aboveTheFloor.jitter(request, spreadMillis)),
				maxWaitMillis);
		Duration waitTime = Duration.ofMillis(waitMillis);
		return new RetryPlan(waitTime, Duration.ofMillis(floorMillis), Duration.ofMillis(waitMillis - floorMillis),
				Duration.ofMillis(spreadMillis), PlanSource.HANDED_ON, Duration.ofMillis(floorMillis), Duration.ZERO,
				false, Optional.empty(), clampedToZero, Saturating.add(nowNanos, Saturating.multiply(waitMillis, 1_000_000)),
				Saturating.plus(wall, waitTime), List.of());
	}

	/**
	 * Reads each wait field the options read ({@code Retry-After}, {@code retry-after-ms}, {@code x-ms-retry-after-ms})
	 * and keeps the longest instruction, that is the later instant (the first read wins a tie); the others are passed
	 * over and reported. Refused fields are passed over too; when every field present is refused, the first refusal
	 * in that order is thrown, so a response with {@code Retry-After} alone fails exactly as before.
	 */
	private Choice choose(ResponseHints hints, ServerDate date, Receipt receipt) {
		List<Object> read = new ArrayList<>(3);
		for (HintField field : ResponseHints.WAIT_FIELDS) {
			if (this.options.fields().reads(field) && hints.present(field)) {
				try {
					read.add((field == HintField.RETRY_AFTER) ? instruction(hints, hints.retryAfter(), date, receipt)
							: new Instruction(source(field), hints.millis(field), label(hints, field)));
				}
				catch (RetryAfterException ex) {
					read.add(new Refused(field, ex));
				}
			}
		}
		Instruction chosen = null;
		for (Object reading : read) {
			if (reading instanceof Instruction candidate && (chosen == null || candidate.millis() > chosen.millis())) {
				chosen = candidate;
			}
		}
		if (chosen == null) {
			throw ((Refused) read.get(0)).error();
		}
		List<RetryPlan.PassedOver> passedOver = new ArrayList<>(read.size() - 1);
		for (Object reading : read) {
			if (reading instanceof Refused refused) {
				passedOver.add(new RetryPlan.PassedOver(refused.field(), Optional.empty(),
						Optional.of(refused.error().code())));
			}
			else if (reading != chosen) {
				passedOver.add(new RetryPlan.PassedOver(((Instruction) reading).field(),
						Optional.of(Duration.ofMillis(((Instruction) reading).reported())), Optional.empty()));
			}
		}
		return new Choice(chosen, passedOver);
	}

	private static PlanSource source(HintField field) {
		if (field.inBody()) {
			return PlanSource.RETRY_INFO;
		}
		return (field == HintField.RETRY_AFTER_MS) ? PlanSource.RETRY_AFTER_MS : PlanSource.X_MS_RETRY_AFTER_MS;
	}

	/** How a field other than {@code Retry-After} is named in messages: a header with its value, the body's hint. */
	private static String label(ResponseHints hints, HintField field) {
		if (field.inBody()) {
			return field.names().get(0) + "'s retryDelay (" + hints.millis(field) + " ms)";
		}
		return field.names().get(0) + " " + FieldText.quote(hints.lines(field.names().get(0)).get(0).strip());
	}

	/**
	 * One reading of each clock: the ticker, and the wall clock wound back to the moment of receipt when that is
	 * known.
	 */
	private Receipt receipt(PlanRequest request) {
		long tickerNow = this.ticker.read();
		long receivedNanos = request.responseReceivedNanos().orElse(tickerNow);
		Instant wall = this.wallClock.instant();
		long sinceReceipt = tickerNow - receivedNanos;
		if (sinceReceipt > 0) {
			wall = Saturating.plusNanos(wall, -sinceReceipt);
		}
		return new Receipt(receivedNanos, wall, Saturating.toEpochMilli(wall));
	}

	/**
	 * The server's instruction in its own frame: delay-seconds as they are, an HTTP-date minus the response's own
	 * {@code Date} (or, when allowed, minus the client's wall clock at receipt).
	 */
	private Instruction instruction(ResponseHints hints, RetryAfterValue field, ServerDate date, Receipt receipt) {
		if (!field.dateForm()) {
			return new Instruction(PlanSource.DELAY_SECONDS, Saturating.multiply(field.delaySeconds(), 1000),
					"Retry-After " + field.quoted());
		}
		long reference = date.present() ? date.epochSecond() : receipt.epochSecond();
		long retryAt = hints.retryAt(reference);
		if (date.problem() != null) {
			throw new RetryAfterException(RetryAfterError.MALFORMED_DATE_HEADER, "Retry-After was sent as an"
					+ " HTTP-date (" + field.quoted() + ") but the response's Date header " + date.problem()
					+ ", so there is no trustworthy record of what the server thought the time was, and the wait"
					+ " cannot be measured in the server's frame. Ask the origin to send exactly one valid Date header"
					+ " in IMF-fixdate form (RFC 9110 §6.6.1), or delay-seconds instead of a date.");
		}
		if (date.present()) {
			return new Instruction(PlanSource.HTTP_DATE, sinceServerDate(field, retryAt, date) * 1000,
					"Retry-After " + field.quoted());
		}
		if (this.options.onMissingDate() == OnMissingDate.TRUST_CLIENT_CLOCK) {
			// The wall clock is truncated to the millisecond, so the instructed wait is rounded up, never down.
			return new Instruction(PlanSource.HTTP_DATE_CLIENT_CLOCK,
					Saturating.subtract(Saturating.multiply(retryAt, 1000), receipt.epochMillis()),
					"Retry-After " + field.quoted());
		}
		throw new RetryAfterException(RetryAfterError.MISSING_DATE_HEADER, "Retry-After was sent as an HTTP-date ("
				+ field.quoted() + ") but the response carried no Date header, so there is no record of what the"
				+ " server thought the time was. Subtracting the client clock instead makes the wait wrong by the full"
				+ " amount of any skew: a client running forty seconds fast computes a wait of zero and retries"
				+ " straight back into the limiter. Ask the origin to send a Date header, which RFC 9110 requires on"
				+ " responses like this one, or set onMissingDate to TRUST_CLIENT_CLOCK to accept the error explicitly.");
	}

	/** {@code Retry-After − Date} in seconds; a date more than one second before {@code Date} is stale. */
	private static long sinceServerDate(RetryAfterValue field, long retryAt, ServerDate date) {
		long difference = retryAt - date.epochSecond();
		if (difference < -1) {
			throw new RetryAfterException(RetryAfterError.STALE_DATE, "Retry-After " + field.quoted() + " is "
					+ (-difference) + " s before the response's own Date (\"" + HttpDate.format(date.epochSecond())
					+ "\"). A date in the past would become an immediate retry: a hot loop against a service that is"
					+ " already refusing requests. The origin is computing its Retry-After wrongly (or caching it); ask"
					+ " it to send a future date or delay-seconds.");
		}
		return difference;
	}

	private static void requireWholeRoundTrip(PlanRequest request) {
		if (request.requestSentNanos().isPresent() != request.responseReceivedNanos().isPresent()) {
			throw new RetryAfterException(RetryAfterError.HALF_MEASURED_ROUND_TRIP, "Only the "
					+ (request.requestSentNanos().isPresent() ? "request-sent" : "response-received") + " instant was"
					+ " given, so the round trip is half measured and the response's age would be wrong by an unknown"
					+ " amount. Pass both instants (PlanRequest.withRoundTrip(sent, received)) or neither.");
		}
	}

	/**
	 * The response's age: the {@code Age} field (one field of delta-seconds; anything else is ignored and reported)
	 * plus the measured round trip, both durations of clocks that cancel the client's offset.
	 */
	private static Age age(AgeValue ageField, PlanRequest request, Receipt receipt) {
		long ageMillis = Saturating.multiply(ageField.seconds(), 1000);
		boolean ignored = ageField.ignored();
		if (request.requestSentNanos().isPresent()) {
			long sent = request.requestSentNanos().getAsLong();
			long roundTrip = receipt.nanos() - sent;
			if (roundTrip < 0) {
				throw new IllegalArgumentException("the response was received (" + receipt.nanos()
						+ " ns) before the request was sent (" + sent
						+ " ns); both instants must be readings of the planner's ticker");
			}
			// Rounded down, so the floor it is taken from is rounded up.
			ageMillis = Saturating.add(ageMillis, roundTrip / 1_000_000);
		}
		return new Age(ageMillis, ignored);
	}

	/**
	 * Where the instruction came from, how long it is before age, and the field as quoted in messages;
	 * {@link #reported()} is never negative.
	 */
	private record Instruction(PlanSource source, long millis, String label) {

		long reported() {
			return Math.max(0, this.millis);
		}

		HintField field() {
			return this.source.field();
		}

	}

	/** A wait field that was present and refused. */
	private record Refused(HintField field, RetryAfterException error) {

	}

	/** The instruction chosen among the wait fields, and the others. */
	private record Choice(Instruction instruction, List<RetryPlan.PassedOver> passedOver) {

	}

	/** The response's age in milliseconds, and whether an {@code Age} field was there but unusable. */
	private record Age(long millis, boolean ignored) {

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

package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.github.retryafter.HintField;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.metrics.AmplificationWindow;
import io.github.retryafter.boot.metrics.LastWindows;
import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.AttemptKind;
import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.CooldownStartedEvent;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;
import io.github.retryafter.engine.WaitCause;

/**
 * A listener that keeps, per provider, what an operator wants to see on the {@code retryafter} endpoint: operations by
 * outcome, attempts by kind, the amplification over the last 50 to 60 seconds, the last measured clock skew, the last
 * hint received (a {@code Retry-After}, or whatever other field a retry was planned from or closed the provider's
 * gate: {@code retry-after-ms}, Gemini's {@code RetryInfo}, a window's reset) and the last refusal. It needs no metrics library.
 * <p>
 * State is kept per provider name the engine reports, which is always a configured name or {@code default} for engines
 * built by the starter, so it is bounded by configuration. A {@code Retry-After} value is kept as received but cut to
 * {@value #MAX_VALUE_LENGTH} characters.
 * <p>
 * Thread-safe: counters are adders, the "last" values are single volatile references to immutable records.
 */
public final class RetryAfterActivity implements RetryListener {

	/** The longest {@code Retry-After} value kept; a longer one is cut and ends with an ellipsis. */
	public static final int MAX_VALUE_LENGTH = 64;

	private final InstantSource wallClock;

	private final Ticker ticker;

	private final Map<String, State> states = new ConcurrentHashMap<>();

	// null: windows not kept (no provider list to read the profiles' field sets from)
	private final Supplier<RetryAfterProviders> providers;

	/**
	 * Creates the listener.
	 * @param wallClock stamps the "last seen" values, for display only
	 * @param ticker the monotonic clock of the amplification window
	 */
	public RetryAfterActivity(InstantSource wallClock, Ticker ticker) {
		this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.providers = null;
	}

	/**
	 * Creates the listener, which also keeps each configured provider's last rate-limit windows
	 * ({@link #windows(String)}), read as the provider's profile reads them.
	 * @param wallClock stamps the "last seen" values, for display only
	 * @param ticker the monotonic clock of the amplification window
	 * @param providers supplies the configured providers; called when a response is first seen, not here, because
	 * this listener is created while the providers' engines are being built
	 */
	public RetryAfterActivity(InstantSource wallClock, Ticker ticker, Supplier<RetryAfterProviders> providers) {
		this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.providers = Objects.requireNonNull(providers, "providers");
	}

	@Override
	public void onAttempt(AttemptEvent event) {
		State state = state(event.spec().provider());
		state.attempts.get(event.kind()).increment();
		state.window.recordAttempt();
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		State state = state(event.spec().provider());
		keepWindows(state, event.spec().provider(), event.outcome());
		Instant now = this.wallClock.instant();
		event.plan()
			.flatMap(RetryPlan::skew)
			.ifPresent((skew) -> state.lastSkew = new LastSkew(skew.toNanos() / 1e9, now,
					skew.abs().compareTo(RetryPlan.DATE_PRECISION) < 0));
		hint(event.outcome(), event.plan()).ifPresent((value) -> state.lastRetryAfter = new LastRetryAfter(value,
				status(event.outcome()), now, "RETRY", Optional.of(event.delay()), event.source().name(),
				event.refusedHint()));
	}

	/**
	 * Keeps the hint of a response that closed its provider's gate when no retry was planned from it: a window's reset
	 * (the retry, if any, planned its backoff, and the gate holds it until the reset), or a wait field whose operation
	 * ended. Its wait is how long the gate stays closed, or the retry's delay when longer.
	 */
	@Override
	public void onCooldownStarted(CooldownStartedEvent event) {
		Optional<Decision.Retry> retry = (event.decision() instanceof Decision.Retry scheduled) ? Optional.of(scheduled)
				: Optional.empty();
		if (event.cause() != WaitCause.WINDOW_RESET && retry.flatMap(Decision.Retry::plan).isPresent()) {
			return;
		}
		Duration waitTime = retry.map(Decision.Retry::delay)
			.filter((delay) -> delay.compareTo(event.closedFor()) > 0)
			.orElse(event.closedFor());
		state(event.spec().provider()).lastRetryAfter = new LastRetryAfter(
				fieldValue(event.field(), event.response().hints().lines(event.field())), event.status(),
				this.wallClock.instant(),
				retry.isPresent() ? "RETRY" : ((Decision.Stop) event.decision()).outcome().name(),
				Optional.of(waitTime), event.cause().name(), Optional.empty());
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		State state = state(event.spec().provider());
		state.lastRefusal = new LastRefusal(event.stop(), event.hintError(), event.reason(), this.wallClock.instant());
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		State state = state(event.spec().provider());
		event.lastOutcome().ifPresent((last) -> keepWindows(state, event.spec().provider(), last));
		state.operations.get(event.outcome()).increment();
		state.window.recordOperation();
		if (event.outcome() != Outcome.SUCCESS && event.lastOutcome().isPresent()) {
			AttemptOutcome last = event.lastOutcome().get();
			retryAfter(last).ifPresent((value) -> state.lastRetryAfter = new LastRetryAfter(value, status(last),
					this.wallClock.instant(), event.outcome().name(), Optional.empty(), null, Optional.empty()));
		}
	}

	/**
	 * Returns what was seen of one provider so far.
	 * @param provider the provider name
	 * @return a snapshot; all zeros and empty when nothing was seen
	 */
	public Snapshot snapshot(String provider) {
		State state = this.states.get(provider);
		if (state == null) {
			state = new State(AmplificationWindow.standard(this.ticker));
		}
		Map<Outcome, Long> operations = new EnumMap<>(Outcome.class);
		state.operations.forEach((outcome, adder) -> operations.put(outcome, adder.sum()));
		Map<AttemptKind, Long> attempts = new EnumMap<>(AttemptKind.class);
		state.attempts.forEach((kind, adder) -> attempts.put(kind, adder.sum()));
		double ratio = state.window.ratio();
		return new Snapshot(Map.copyOf(operations), Map.copyOf(attempts),
				Double.isNaN(ratio) ? Optional.empty() : Optional.of(ratio), state.window.span(),
				Optional.ofNullable(state.lastSkew), Optional.ofNullable(state.lastRetryAfter),
				Optional.ofNullable(state.lastRefusal));
	}

	/**
	 * Returns the last rate-limit windows a configured provider's responses announced.
	 * @param provider the provider name
	 * @return its windows, empty when none was seen (or this listener was created without the providers)
	 */
	public Optional<LastWindows> windows(String provider) {
		State state = this.states.get(provider);
		return Optional.ofNullable(state).map((seen) -> seen.windows);
	}

	/** Keeps a configured provider's windows from a response, read with its profile's field set. */
	private void keepWindows(State state, String provider, AttemptOutcome outcome) {
		if (this.providers == null || !(outcome instanceof AttemptOutcome.Response response)) {
			return;
		}
		this.providers.get()
			.get(provider)
			.ifPresent((configured) -> state.windows
				.record(response.hints().rateLimits(configured.policy().planner().fields())));
	}

	private State state(String provider) {
		State state = this.states.get(provider);
		if (state != null) {
			return state;
		}
		return this.states.computeIfAbsent(provider, (name) -> new State(AmplificationWindow.standard(this.ticker)));
	}

	/**
	 * The hint a retry was planned from, as received: the {@code Retry-After} lines as they are (or refused), another
	 * wait field as {@code name: value}.
	 */
	private static Optional<String> hint(AttemptOutcome outcome, Optional<RetryPlan> plan) {
		HintField field = plan.map((planned) -> planned.source().field()).orElse(HintField.RETRY_AFTER);
		if (field == HintField.RETRY_AFTER) {
			return retryAfter(outcome);
		}
		String name = field.names().get(0);
		List<String> lines = field.inBody() ? List.of("retryDelay " + plan.get().instructed().toMillis() + " ms")
				: ((AttemptOutcome.Response) outcome).hints().lines(name);
		return Optional.of(fieldValue(name, lines));
	}

	/** A field other than {@code Retry-After}, as {@code name: value}, cut. */
	private static String fieldValue(String name, List<String> lines) {
		return cut(lines.isEmpty() ? name : name + ": " + String.join(", ", lines));
	}

	private static String cut(String value) {
		return (value.length() > MAX_VALUE_LENGTH) ? value.substring(0, MAX_VALUE_LENGTH - 1) + "…" : value;
	}

	private static Optional<String> retryAfter(AttemptOutcome outcome) {
		if (!(outcome instanceof AttemptOutcome.Response response)) {
			return Optional.empty();
		}
		List<String> values = response.hints().retryAfterLines();
		if (values.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(cut(String.join(", ", values)));
	}

	private static int status(AttemptOutcome outcome) {
		return ((AttemptOutcome.Response) outcome).status();
	}

	/**
	 * What was seen of one provider.
	 *
	 * @param operations operations finished, by outcome (every outcome present)
	 * @param attempts attempts sent, by kind (both kinds present)
	 * @param amplification attempts ÷ operations over the window; empty when no operation finished in it
	 * @param window the window the amplification covers at most
	 * @param lastSkew the last measured clock skew
	 * @param lastRetryAfter the last hint received, whatever field gave it
	 * @param lastRefusal the last refused retry or hint
	 */
	public record Snapshot(Map<Outcome, Long> operations, Map<AttemptKind, Long> attempts,
			Optional<Double> amplification, Duration window, Optional<LastSkew> lastSkew,
			Optional<LastRetryAfter> lastRetryAfter, Optional<LastRefusal> lastRefusal) {

		/**
		 * Returns the operations finished, whatever their outcome.
		 * @return the sum of {@link #operations()}
		 */
		public long totalOperations() {
			return this.operations.values().stream().mapToLong(Long::longValue).sum();
		}

	}

	/**
	 * A measured clock skew.
	 *
	 * @param seconds the server's {@code Date} minus the client's clock at receipt, signed, as measured
	 * @param at when it was measured, on the client's wall clock
	 * @param withinDatePrecision whether its magnitude is under one second, the {@code Date}'s precision: the clocks
	 * agree as far as the field can tell, and the figure is its truncation, not skew
	 */
	public record LastSkew(double seconds, Instant at, boolean withinDatePrecision) {
	}

	/**
	 * A hint received: a {@code Retry-After}, or another field a retry was planned from or that closed the provider's
	 * gate.
	 *
	 * @param value the field value as received (several fields joined with {@code ", "}), cut to
	 * {@value RetryAfterActivity#MAX_VALUE_LENGTH} characters; a field other than {@code Retry-After} as
	 * {@code name: value} ({@code X-RateLimit-Reset: 1765432100}, {@code retry-after-ms: 2500}), Gemini's
	 * {@code RetryInfo} as {@code google.rpc.RetryInfo: retryDelay 27000 ms}
	 * @param status the response's status
	 * @param at when it was received, on the client's wall clock
	 * @param decision {@code RETRY} when a retry was scheduled, else the outcome the operation ended with
	 * @param waitTime the wait before the retry, when one was scheduled; for a field that closed the provider's gate
	 * and no retry was planned from, how long the gate stays closed (or the retry's delay, when longer) (named
	 * {@code waitTime} because a record component cannot be called {@code wait})
	 * @param source where that wait came from: {@code RETRY_AFTER} or {@code BACKOFF} for a retry planned from the
	 * field, the {@link WaitCause} name ({@code WINDOW_RESET}…) for a field that closed the gate and no retry was
	 * planned from; {@code null} when the operation ended on a {@code Retry-After}
	 * @param error why the value could not be used, if it could not
	 */
	public record LastRetryAfter(String value, int status, Instant at, String decision, Optional<Duration> waitTime,
			String source, Optional<RetryAfterError> error) {
	}

	/**
	 * A refused retry or hint.
	 *
	 * @param stop how the operation ended because of it; empty when only a hint was refused
	 * @param hintError the refused {@code Retry-After}'s error, if a hint was involved
	 * @param reason the engine's sentence, with the numbers
	 * @param at when, on the client's wall clock
	 */
	public record LastRefusal(Optional<Outcome> stop, Optional<RetryAfterError> hintError, String reason, Instant at) {
	}

	/** One provider's state. */
	private static final class State {

		private final Map<Outcome, LongAdder> operations = new EnumMap<>(Outcome.class);

		private final Map<AttemptKind, LongAdder> attempts = new EnumMap<>(AttemptKind.class);

		private final AmplificationWindow window;

		private volatile LastSkew lastSkew;

		private volatile LastRetryAfter lastRetryAfter;

		private volatile LastRefusal lastRefusal;

		// one window per unit, each replaced whole by the next response that carries one
		private final LastWindows windows = new LastWindows();

		State(AmplificationWindow window) {
			this.window = window;
			for (Outcome outcome : Outcome.values()) {
				this.operations.put(outcome, new LongAdder());
			}
			for (AttemptKind kind : AttemptKind.values()) {
				this.attempts.put(kind, new LongAdder());
			}
		}

	}

}

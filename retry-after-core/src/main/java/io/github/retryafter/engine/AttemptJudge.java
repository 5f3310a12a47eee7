package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.RandomSource;
import io.github.retryafter.RetryPlan;
import io.github.retryafter.Scope;
import io.github.retryafter.hint.RetryAfterPlanner;
import io.github.retryafter.hint.ShouldRetry;
import io.github.retryafter.internal.Saturating;

/**
 * Decides before and after each attempt, as a function of its inputs. Before: whether the operation ends before its
 * provider's gate and budget are asked (cancelled, too little left of the deadline), and what a refusal by the gate or
 * the budget ends it with. After: what follows, from the operation's state, the attempt's outcome and
 * classification, the ticker reading "now" and what the budget would give a retry, by {@link RetryEngine}'s rules in
 * their order, reading the hint with the engine's planner and drawing from its random source. The deadline is the
 * policy's {@link DeadlineRule} on both sides. It touches no gate, takes no token and emits no event
 * ({@link RetryOperation} acts on what it decides). Immutable and thread-safe, as long as its random source is.
 */
final class AttemptJudge {

	private final RetryPolicy policy;

	private final RetryAfterPlanner planner;

	private final RandomSource random;

	private final DeadlineRule deadline;

	AttemptJudge(RetryPolicy policy, RetryAfterPlanner planner) {
		this.policy = policy;
		this.planner = planner;
		this.random = planner.random();
		this.deadline = policy.deadlineRule();
	}

	/**
	 * Decides before attempt {@code attempt}, in the rules' order, whether the operation ends before its provider's
	 * gate and budget are asked: cancelled ({@link Outcome#CANCELLED}), then no more than
	 * {@link RetryPolicy#minAttemptTime()} left of the deadline after the reserve ({@link Outcome#DEADLINE_EXCEEDED},
	 * reported for a retry). Nothing is allocated when the attempt may go on.
	 * @param cancelled whether the operation's cancellation fired
	 * @param attempt the number of the attempt about to be made
	 * @param deadlineNanos the operation's deadline on the engine's ticker
	 * @param now the ticker reading
	 * @return empty when the attempt goes on to its gate and budget, otherwise the stop
	 */
	Optional<Evaluation> beforeAttempt(boolean cancelled, int attempt, long deadlineNanos, long now) {
		if (cancelled) {
			return Optional.of(Evaluation.stop(Outcome.CANCELLED, "cancelled before attempt " + attempt, false));
		}
		long available = this.deadline.availableNanos(deadlineNanos, now);
		return this.deadline.leavesAnAttempt(available) ? Optional.empty()
				: Optional.of(deadlineExceeded(available, "before attempt " + attempt, attempt > 1));
	}

	/**
	 * The provider's gate refused the attempt ({@code gateReason}): it ends unsent as
	 * {@link Outcome#PROVIDER_COOLING_DOWN}, reported.
	 */
	static Evaluation refusedByGate(String gateReason, int attempt) {
		return Evaluation.stop(Outcome.PROVIDER_COOLING_DOWN, gateReason + "; attempt " + attempt + " was not sent",
				true);
	}

	/**
	 * The gate of {@code scope} already holds {@code maxQueued} requests: the attempt ends unsent as
	 * {@link Outcome#PROVIDER_COOLING_DOWN}, reported, rather than wait in memory.
	 */
	static Evaluation queueFull(Scope scope, int maxQueued, int attempt) {
		return Evaluation.stop(Outcome.PROVIDER_COOLING_DOWN, "'" + scope + "' already holds " + maxQueued
				+ " requests (max-queued); attempt " + attempt + " was not sent: shed load before it reaches the"
				+ " client, or raise max-queued if the heap can hold more", true);
	}

	/**
	 * The budget refused the retry's token ({@code reason}): it ends unsent as {@link Outcome#BUDGET_EXHAUSTED},
	 * reported.
	 */
	static Evaluation refusedByBudget(String reason) {
		return Evaluation.stop(Outcome.BUDGET_EXHAUSTED, reason, true);
	}

	/**
	 * An attempt threw what is not an I/O failure (a codec error, a bug): the operation ends
	 * {@link Outcome#NOT_RETRYABLE}, naming the exception's class, not its message, which may carry anything.
	 */
	static Decision.Stop thrown(int attempt, Throwable failure) {
		return new Decision.Stop(Outcome.NOT_RETRYABLE, "attempt " + attempt + " threw " + failure.getClass().getName()
				+ ", which is not an I/O failure");
	}

	/**
	 * Classifies an attempt's outcome with the policy's classifier, once per attempt; a failed response's
	 * should-retry verdict, when the policy reads one, overrides it ({@code false} vetoes a retry, {@code true} permits
	 * one the status would not get). A success stays a success.
	 */
	Classification classify(AttemptOutcome outcome) {
		Objects.requireNonNull(outcome, "outcome");
		Classification classification = Objects.requireNonNull(this.policy.classifier().classify(outcome),
				"classifier returned null");
		if (classification == Classification.SUCCESS || !(outcome instanceof AttemptOutcome.Response response)) {
			return classification;
		}
		return shouldRetry(response).verdict()
			.map((retry) -> retry ? Classification.RETRYABLE : Classification.NOT_RETRYABLE)
			.orElse(classification);
	}

	private ShouldRetry shouldRetry(AttemptOutcome.Response response) {
		return response.hints().shouldRetry(this.planner.options().fields());
	}

	/** Why a failed attempt is not retried: the provider's veto, when it said so, else the classifier's word. */
	private Evaluation notRetryable(AttemptOutcome outcome, int attempt) {
		Optional<String> vetoedBy = (outcome instanceof AttemptOutcome.Response response)
				? shouldRetry(response).field().filter((field) -> !shouldRetry(response).verdict().get())
				: Optional.empty();
		return Evaluation.stop(Outcome.NOT_RETRYABLE, RetryEngine.describe(outcome) + " on attempt " + attempt
				+ vetoedBy.map((field) -> ": the provider said " + field + ": false, so it is not retried")
					.orElse(" is not retryable"),
				false);
	}

	/**
	 * Decides after an attempt, in the rules' order: success, cancelled, deadline, not retryable, not replay-safe,
	 * attempts, then the retry's schedule (hint, deadline, total wait, budget).
	 * @param state the operation after the attempt
	 * @param outcome what the attempt produced
	 * @param classification the policy's classification of {@code outcome}
	 * @param now the ticker reading the decision is made at
	 * @param tokens what the budget would give a retry, read only if the decision gets that far
	 * @return the decision, and what the operation's events need of it
	 */
	Evaluation judge(OperationState state, AttemptOutcome outcome, Classification classification, long now,
			TokenView tokens) {
		Objects.requireNonNull(state, "state");
		int attempt = state.attempts();
		if (classification == Classification.SUCCESS) {
			return Evaluation.SUCCEEDED;
		}
		if (state.cancelled()) {
			return Evaluation.stop(Outcome.CANCELLED,
					"cancelled; attempt " + attempt + " ended with " + RetryEngine.describe(outcome), false);
		}
		boolean retryable = classification == Classification.RETRYABLE;
		long available = this.deadline.availableNanos(state.deadlineNanos(), now);
		if (!this.deadline.leavesAnAttempt(available)) {
			return deadlineExceeded(available,
					"after attempt " + attempt + " (" + RetryEngine.describe(outcome) + ")", retryable);
		}
		if (!retryable) {
			return notRetryable(outcome, attempt);
		}
		Optional<Decision.Stop> unsafe = ReplaySafety.refusal(this.policy, state.spec(), outcome, attempt);
		if (unsafe.isPresent()) {
			return new Evaluation(unsafe.get(), true, Optional.empty());
		}
		if (attempt >= this.policy.maxAttempts()) {
			return Evaluation.stop(Outcome.ATTEMPTS_EXHAUSTED, "attempt " + attempt + " of " + this.policy.maxAttempts()
					+ " failed (" + RetryEngine.describe(outcome) + "); no attempt left", true);
		}
		return schedule(state, outcome, now, tokens);
	}

	/**
	 * Schedules a wanted retry, in steps: read the server's hint, turn it (or, without a usable one, the backoff) into
	 * a delay, then check the delay's floor against the deadline, the total wait and the budget, trimming the part
	 * above the floor to fit.
	 */
	private Evaluation schedule(OperationState state, AttemptOutcome outcome, long now, TokenView tokens) {
		Hint hint = Hint.read(this.planner, this.policy, state, outcome);
		String why = RetryEngine.describe(outcome) + " on attempt " + state.attempts();
		if (hint.tooLong()) {
			return new Evaluation(new Decision.Stop(Outcome.WAIT_TOO_LONG, "the server asked for a wait longer than "
					+ this.planner.options().maxWait().map(AttemptJudge::seconds).orElse("the maximum")
					+ " after attempt " + state.attempts() + ": " + hint.refused().get().getMessage()), true, hint.error());
		}
		PlannedDelay planned = hint.plan().isPresent()
				? hinted(hint.plan().get(), outcome, state.attempts(), now)
				: backoff(state.attempts(), now);
		long latestNotBefore = this.deadline.latestStartNanos(state.deadlineNanos());
		if (Saturating.add(planned.baseNanos(), Saturating.toNanos(planned.floor())) > latestNotBefore) {
			return new Evaluation(new Decision.Stop(Outcome.WAIT_EXCEEDS_DEADLINE, why + ": a wait of "
					+ seconds(planned.floor()) + " (" + planned.source() + ") plus a useful attempt of "
					+ seconds(this.policy.minAttemptTime()) + " does not fit in the "
					+ seconds(DeadlineRule.remaining(state.deadlineNanos(), now)) + " left of the deadline"), true,
					hint.error());
		}
		Duration waitLeft = Saturating.minus(this.policy.totalWait(), state.totalWait());
		if (planned.floor().compareTo(waitLeft) > 0) {
			return new Evaluation(new Decision.Stop(Outcome.TOTAL_WAIT_EXCEEDED, why + ": a wait of "
					+ seconds(planned.floor()) + " (" + planned.source() + ") would take the total wait from "
					+ seconds(state.totalWait()) + " past its cap of " + seconds(this.policy.totalWait())), true,
					hint.error());
		}
		Optional<Evaluation> noToken = RetryTokens.tokenFree(this.policy, planned.source(),
				hint.plan().map(RetryPlan::floor).orElse(Duration.ZERO)) ? Optional.empty()
				: budgetExhausted(state.spec().scope(), why, hint, tokens);
		if (noToken.isPresent()) {
			return noToken.get();
		}
		Duration fits = Duration.ofNanos(Saturating.subtract(latestNotBefore, planned.baseNanos()));
		Duration delay = min(min(planned.delay(), fits), waitLeft);
		Decision.Retry retry = new Decision.Retry(delay,
				Saturating.add(planned.baseNanos(), Saturating.toNanos(delay)), planned.source(), hint.plan(),
				planned.draw(), hint.refused());
		return new Evaluation(retry, false, hint.error());
	}

	/** The hint mode's wait for a plan, measured from the instant the planner measured it from. */
	private PlannedDelay hinted(RetryPlan plan, AttemptOutcome outcome, int attempt, long now) {
		HintMode.HintedWait wait = this.policy.hintMode().wait(plan, this.policy, attempt, this.random);
		return new PlannedDelay(DelaySource.RETRY_AFTER, measuredFrom(plan, outcome, now), wait.floor(), wait.delay(),
				wait.draw());
	}

	/**
	 * The ticker reading a plan's wait runs from: its deadline less its wait, or, when the deadline saturated at the
	 * end of the ticker's range, the reading the planner used (the response's receipt with the round trip measured,
	 * otherwise now; now for an instant a failure handed on).
	 */
	private long measuredFrom(RetryPlan plan, AttemptOutcome outcome, long now) {
		if (plan.deadlineNanos() != Long.MAX_VALUE) {
			return plan.deadlineNanos() - Saturating.toNanos(plan.waitTime());
		}
		return (this.policy.subtractRoundTrip() && outcome instanceof AttemptOutcome.Response response)
				? response.receivedAtNanos() : now;
	}

	/** The fallback full-jitter backoff, from now: no usable hint. */
	private PlannedDelay backoff(int attempt, long now) {
		BackoffDraw draw = this.policy.backoff().draw(attempt, this.random.nextDouble());
		return new PlannedDelay(DelaySource.BACKOFF, now, draw.delay(), draw.delay(), Optional.of(draw));
	}

	/**
	 * The budget, read last, so that it is read only for a retry that would otherwise happen, and not for one the
	 * provider asked for that its gate paces ({@link RetryTokens#tokenFree}); nothing is taken here
	 * (the retry takes its token when it is sent, {@link RetryTokens#take}). An empty budget while other retries hold
	 * its tokens in flight does not stop the operation: their successes give tokens back.
	 */
	private static Optional<Evaluation> budgetExhausted(Scope scope, String why, Hint hint, TokenView view) {
		double tokens = view.available();
		if (tokens >= 1.0 || view.inFlight() > 0) {
			return Optional.empty();
		}
		return Optional.of(new Evaluation(new Decision.Stop(Outcome.BUDGET_EXHAUSTED, why + ": the retry budget for '"
				+ scope + "' has " + String.format(Locale.ROOT, "%.2f", tokens)
				+ " tokens, less than the 1 a retry needs"), true, hint.error()));
	}

	/** No more than the minimum useful attempt is left ({@code availableNanos}), {@code when}. */
	private Evaluation deadlineExceeded(long availableNanos, String when, boolean refusedRetry) {
		return Evaluation.stop(Outcome.DEADLINE_EXCEEDED, "deadline: " + seconds(Duration.ofNanos(Math.max(0,
				availableNanos))) + " left " + when + ", no more than the minimum useful attempt of "
				+ seconds(this.policy.minAttemptTime()), refusedRetry);
	}

	private static String seconds(Duration duration) {
		return RetryEngine.seconds(duration);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	/**
	 * A delay before its checks: where it came from, the ticker reading it runs from, the floor it may not be
	 * shortened below, the delay itself and any backoff draw made.
	 */
	private record PlannedDelay(DelaySource source, long baseNanos, Duration floor, Duration delay,
			Optional<BackoffDraw> draw) {

	}

}

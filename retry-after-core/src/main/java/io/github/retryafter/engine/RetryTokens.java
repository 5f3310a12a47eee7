package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Locale;

import io.github.retryafter.RetryPlan;
import io.github.retryafter.Scope;
import io.github.retryafter.budget.HintedRetries;
import io.github.retryafter.budget.RetryBudget;

/**
 * The one way operations reach their engine's retry budget: a retry's token is taken or refused in one call when the
 * retry is sent ({@link #take}), the attempt's end settles, gives back or deposits once ({@link #attemptEnded}), and
 * a decision reads what a retry could get through a {@link TokenView}. Thread-safe as its budget is; stateless
 * itself (an operation keeps whether it holds a token, and since when it waits for one).
 */
final class RetryTokens {

	/** How often, at the least, a retry waiting for a token held in flight asks again. */
	static final long MIN_TOKEN_POLL_NANOS = 10_000_000L;

	/** How long, at the most, a retry waiting for a token waits before it asks again. */
	static final long MAX_TOKEN_POLL_NANOS = 100_000_000L;

	private final RetryBudget budget;

	RetryTokens(RetryBudget budget) {
		this.budget = budget;
	}

	/** The answer to a retry about to be sent: its token taken, a wait for one held in flight, or a refusal. */
	sealed interface Take {

		/**
		 * The token is taken.
		 * @param after what a retry could take after it
		 */
		record Taken(double after) implements Take {

		}

		/**
		 * No token now, but tokens held in flight may come back: ask again at {@code untilNanos}.
		 * @param untilNanos the ticker reading to ask again at
		 */
		record Await(long untilNanos) implements Take {

		}

		/**
		 * No token, and none may come back before the retry's last useful start.
		 * @param reason what the budget held, for the stop
		 */
		record Refused(String reason) implements Take {

		}

	}

	/**
	 * Whether a retry under {@code policy} is sent without a token: its wait is the provider's
	 * ({@link DelaySource#RETRY_AFTER}) with a floor above zero (a {@code Retry-After: 0} names no instant to hold
	 * to), pacing is on so the provider's gate holds it, and the rule is {@link HintedRetries#PACED}. Such a retry
	 * takes nothing, and gives nothing back or settles nothing when it ends.
	 */
	static boolean tokenFree(RetryPolicy policy, DelaySource source, Duration floor) {
		return source == DelaySource.RETRY_AFTER && !floor.isZero() && !floor.isNegative()
				&& policy.hintedRetries() == HintedRetries.PACED && policy.pacing().enabled();
	}

	/** See {@link #tokenFree(RetryPolicy, DelaySource, Duration)}, for a retry scheduled. */
	static boolean tokenFree(RetryPolicy policy, Decision.Retry retry) {
		return tokenFree(policy, retry.source(), retry.plan().map(RetryPlan::floor).orElse(Duration.ZERO));
	}

	/** What a retry to {@code scope} could take now, for the attempt's record and the events. */
	double available(Scope scope) {
		return this.budget.availableTokens(scope);
	}

	/** What a decision about a retry to {@code scope} reads of the budget, when it gets that far. */
	TokenView view(Scope scope) {
		return new TokenView() {

			@Override
			public double available() {
				return RetryTokens.this.budget.availableTokens(scope);
			}

			@Override
			public int inFlight() {
				return RetryTokens.this.budget.pendingTokens(scope);
			}

		};
	}

	/**
	 * Takes the token of retry {@code attempt} about to be sent, or says why not: with none there while others are
	 * held in flight (their successes give tokens back) and time left to start, the retry waits, at intervals that
	 * double with its wait from {@link #MIN_TOKEN_POLL_NANOS} to {@link #MAX_TOKEN_POLL_NANOS}, never past
	 * {@code latestStart}; otherwise it is refused.
	 * @param scope the retry's scope
	 * @param attempt the retry's attempt number
	 * @param now the ticker reading
	 * @param latestStart the last ticker reading a useful attempt could start at
	 * @param waitingSince when the retry began to wait for a token, {@code now} if it has not
	 * @return taken, wait, or refused
	 */
	Take take(Scope scope, int attempt, long now, long latestStart, long waitingSince) {
		if (this.budget.tryAcquire(scope)) {
			return new Take.Taken(this.budget.availableTokens(scope));
		}
		int inFlight = this.budget.pendingTokens(scope);
		if (inFlight > 0 && latestStart - now > 0) {
			long poll = Math.min(MAX_TOKEN_POLL_NANOS, Math.max(MIN_TOKEN_POLL_NANOS, now - waitingSince));
			return new Take.Await((latestStart - (now + poll) < 0) ? latestStart : now + poll);
		}
		return new Take.Refused("the retry budget for '" + scope + "' has no token for attempt " + attempt + " ("
				+ String.format(Locale.ROOT, "%.2f", this.budget.availableTokens(scope)) + " available"
				+ ((inFlight > 0) ? ", " + inFlight + " that may still come back at the last "
						+ "instant a useful attempt could start" : "")
				+ ")");
	}

	/**
	 * Reports an attempt's end to the budget, once: a first attempt that succeeded deposits; a retry holding a token
	 * gives it back when it succeeded and otherwise leaves it spent (no longer in flight); a retry sent without one
	 * ({@link #tokenFree}) changes nothing.
	 * @param scope the attempt's scope
	 * @param retry whether the attempt was a retry
	 * @param token whether it holds a token
	 * @param succeeded whether it succeeded
	 */
	void attemptEnded(Scope scope, boolean retry, boolean token, boolean succeeded) {
		if (!retry) {
			if (succeeded) {
				this.budget.recordSuccess(scope);
			}
		}
		else if (!token) {
			return;
		}
		else if (succeeded) {
			this.budget.refund(scope);
		}
		else {
			this.budget.settle(scope);
		}
	}

}

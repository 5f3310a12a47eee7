package io.github.retryafter.budget;

import java.util.Optional;

import io.github.retryafter.Scope;

/**
 * A shared allowance of retries, so that during an outage retries cannot multiply the load on a failing dependency.
 * First attempts never consume it; each retry takes one token from its provider's allowance and one from the
 * client-wide one, when the retry is sent, and a retry that succeeds may give them back ({@link #refund}). A retry the
 * provider asked for (a usable {@code Retry-After} above zero) that the provider's gate holds (pacing on) is not asked
 * at all under the default {@link HintedRetries#PACED}: the gate bounds it instead. So what a budget bounds is the
 * retries into a provider that gave no sign of when to come back: at most its capacity, plus its deposits, plus its
 * refill over the time, fail; beyond that a retry ends {@code BUDGET_EXHAUSTED}. docs/fleet.md states the rule.
 * <p>
 * Besides the three calls the engine makes, a budget answers the reads that reporting needs (the Actuator endpoint,
 * the meters): what a retry could take ({@link #availableTokens}), what a provider's own bucket holds
 * ({@link #providerTokens}), what the global bucket holds ({@link #globalTokens}) and its shape
 * ({@link #globalSettings}). Reads never take anything, so a report cannot change a decision.
 * <p>
 * The engine calls the {@link Scope} forms: a scope that names an origin has a bucket of its own (with its provider's
 * settings) under the same global bucket, so one origin's outage cannot spend another's tokens. A budget that keeps
 * no per-origin buckets answers them for the whole provider (the default methods), which is only coarser, never
 * laxer.
 * <p>
 * Implementations must be thread-safe: one budget is shared by every operation of a client.
 */
public interface RetryBudget {

	/**
	 * Takes one token for a retry about to be sent: one from {@code provider}'s bucket and one from the global bucket,
	 * or neither.
	 * @param provider the provider the retry goes to
	 * @return {@code true} if the retry may be sent, {@code false} if either bucket is empty
	 */
	boolean tryAcquire(String provider);

	/**
	 * Records a successful first attempt, which earns both the provider's and the global bucket a deposit.
	 * @param provider the provider the attempt went to
	 */
	void recordSuccess(String provider);

	/**
	 * Records a retry whose attempt succeeded, giving back the token it took (the AWS SDKs' retry-quota refund): paced
	 * retries that succeed cost almost nothing, while retries that fail again keep their tokens spent, so the retries
	 * that failed never exceed what the budget admits. Does nothing by default: a budget that never refunds is only
	 * stricter.
	 * @param provider the provider the retry went to
	 */
	default void refund(String provider) {
	}

	/**
	 * Returns what a retry to {@code provider} could take right now: the smaller of the provider's and the global
	 * bucket. Reading does not take anything.
	 * @param provider the provider
	 * @return the tokens available, {@link Double#POSITIVE_INFINITY} when unlimited
	 */
	double availableTokens(String provider);

	/**
	 * Returns the tokens in {@code provider}'s own bucket right now, regardless of the global bucket. A budget without
	 * per-provider buckets answers what a retry to {@code provider} could take ({@link #availableTokens}).
	 * @param provider the provider
	 * @return the tokens, {@link Double#POSITIVE_INFINITY} when unlimited
	 */
	default double providerTokens(String provider) {
		return availableTokens(provider);
	}

	/**
	 * Takes one token for a retry about to be sent to {@code scope}: from its bucket (the origin's own, when it names
	 * one) and from the global bucket, or neither.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return {@code true} if the retry may be sent
	 */
	default boolean tryAcquire(Scope scope) {
		return tryAcquire(scope.provider());
	}

	/**
	 * Records a successful first attempt to {@code scope}.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 */
	default void recordSuccess(Scope scope) {
		recordSuccess(scope.provider());
	}

	/**
	 * Gives back the token a successful retry to {@code scope} took.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 */
	default void refund(Scope scope) {
		refund(scope.provider());
	}

	/**
	 * Reports that a retry to {@code scope} whose token was taken ended without success (it failed, timed out, or its
	 * operation ended while it was in flight): its token stays spent, and it no longer counts in
	 * {@link #pendingTokens}. A retry that succeeded reports {@link #refund(Scope)} instead. Does nothing by default.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 */
	default void settle(Scope scope) {
	}

	/**
	 * Returns how many tokens may still come to a retry to {@code scope} that finds the budget empty now: those its
	 * retries hold while their attempts are in flight (each that succeeds gives its token back), and, for a budget
	 * shared by a fleet, one for a lease on its way or tokens other instances hold. While it is positive, the engine
	 * lets such a retry wait for a token (bounded by the retry's last useful start) instead of giving up. Tokens in
	 * flight are still spent, so the bound on failed retries is unchanged. Zero by default: a budget that does not
	 * count them refuses at once.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return the tokens that may still come, never negative
	 */
	default int pendingTokens(Scope scope) {
		return 0;
	}

	/**
	 * Returns what a retry to {@code scope} could take right now. Reading does not take anything.
	 * @param scope the provider, and the origin when the provider keeps its state per origin
	 * @return the tokens available, {@link Double#POSITIVE_INFINITY} when unlimited
	 */
	default double availableTokens(Scope scope) {
		return availableTokens(scope.provider());
	}

	/**
	 * Returns the tokens in the global bucket right now.
	 * @return the tokens, {@link Double#POSITIVE_INFINITY} when unlimited
	 */
	double globalTokens();

	/**
	 * Returns the shape of the global bucket every provider also draws from.
	 * @return its settings, empty when the budget has no global bucket (the unlimited budget)
	 */
	default Optional<BudgetSettings> globalSettings() {
		return Optional.empty();
	}

	/**
	 * Returns a budget that admits every retry: only attempts, deadline and total wait limit them.
	 * @return the unlimited budget; stateless and thread-safe
	 */
	static RetryBudget unlimited() {
		return UnlimitedBudget.INSTANCE;
	}

}

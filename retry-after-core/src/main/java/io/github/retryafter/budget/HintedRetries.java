package io.github.retryafter.budget;

/**
 * Whether a retry the provider asked for draws on the retry budget. A retry budget exists to stop retries into a
 * provider that is failing and gave no sign of when it will recover; a refusal that names its instant
 * ({@code Retry-After}) is such a sign, and with provider pacing on the provider's gate already holds the retry to that
 * instant and sends it at the rate the provider accepts (one probe first after a cooldown). docs/fleet.md states the
 * rule and its bounds.
 */
public enum HintedRetries {

	/**
	 * The default. A retry whose wait the provider named, held by the provider's gate (pacing on), takes no token and
	 * gives none back; the gate bounds it instead: nothing reaches the provider before its instant, after a cooldown
	 * one probe goes first and the rest follow only once the provider admitted it, at a rate that falls on every
	 * refusal; and each operation keeps its attempt limit, deadline and total wait. Every other retry (no usable hint,
	 * or pacing off) takes a token as {@link #TOKENS} says.
	 */
	PACED,

	/**
	 * Every retry takes a token when it is sent, hinted or not: the budget bounds all retries, and during a refused
	 * burst larger than the budget the retries beyond it end {@code BUDGET_EXHAUSTED} even though the provider named
	 * when to come back.
	 */
	TOKENS

}

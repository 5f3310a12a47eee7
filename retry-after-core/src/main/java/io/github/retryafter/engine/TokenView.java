package io.github.retryafter.engine;

/**
 * What the retry budget would give a retry now, as {@link AttemptJudge} reads it: only when a decision gets that far,
 * and what may still come only when nothing is there (a fleet's budget may ask the fleet when asked that).
 */
interface TokenView {

	/**
	 * Returns the tokens a retry could take now.
	 * @return the tokens, {@link Double#POSITIVE_INFINITY} when unlimited
	 */
	double available();

	/**
	 * Returns how many tokens held in flight (or by a fleet) may still come back.
	 * @return the tokens that may still come, never negative
	 */
	int inFlight();

	/**
	 * Returns a fixed view, for tests and reports.
	 * @param available the tokens a retry could take
	 * @param inFlight the tokens that may still come back
	 * @return the view
	 */
	static TokenView of(double available, int inFlight) {
		return new TokenView() {

			@Override
			public double available() {
				return available;
			}

			@Override
			public int inFlight() {
				return inFlight;
			}

		};
	}

}

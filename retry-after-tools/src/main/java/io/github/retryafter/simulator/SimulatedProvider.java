package io.github.retryafter.simulator;

/**
 * A running simulated provider: it answers each request at the virtual instant it arrives. Not thread-safe: a run is
 * confined to one thread.
 */
interface SimulatedProvider {

	/**
	 * Answers a request that arrives now.
	 * @param now the virtual time, nanoseconds from the workload's start
	 * @return the answer
	 */
	Answer answer(long now);

}

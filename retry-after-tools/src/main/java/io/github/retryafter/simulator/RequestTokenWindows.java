package io.github.retryafter.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * An OpenAI-style provider's limits: a request window admitting {@code requests} requests and a token window admitting
 * {@code tokens} tokens, each a fixed window starting when the workload starts and renewed whole at its end. Every
 * request costs {@code tokenCost} tokens, a number the provider knows and the client does not. A request is admitted
 * when its request window has a request left and its token window has its cost left; either way the provider sends
 * {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}} (resets as Go durations), and a refusal is a
 * {@code 429} with {@code retry-after-ms} (the time until the later of the windows that refused it resets) and
 * {@code Retry-After} in whole seconds, rounded up.
 * <p>
 * Immutable and thread-safe.
 *
 * @param requests the requests one request window admits
 * @param requestWindow the request window's length
 * @param tokens the tokens one token window admits
 * @param tokenWindow the token window's length
 * @param tokenCost the tokens each request costs, unknown to the client
 */
public record RequestTokenWindows(long requests, Duration requestWindow, long tokens, Duration tokenWindow,
		long tokenCost) {

	/**
	 * Validates eagerly.
	 * @throws IllegalArgumentException naming the bad value
	 * @param requests the requests one request window admits
	 * @param requestWindow the request window's length
	 * @param tokens the tokens one token window admits
	 * @param tokenWindow the token window's length
	 * @param tokenCost the tokens each request costs, unknown to the client
	 */
	public RequestTokenWindows {
		Objects.requireNonNull(requestWindow, "requestWindow");
		Objects.requireNonNull(tokenWindow, "tokenWindow");
		if (requests < 1) {
			throw new IllegalArgumentException("requests per window must be at least 1 but was " + requests);
		}
		if (tokenCost < 1 || tokens < tokenCost) {
			throw new IllegalArgumentException("a token window must hold at least one request's cost: tokens "
					+ tokens + ", cost " + tokenCost);
		}
		if (requestWindow.toMillis() < 1 || tokenWindow.toMillis() < 1) {
			throw new IllegalArgumentException("windows must last at least 1 ms but were " + requestWindow + " and "
					+ tokenWindow);
		}
	}

	/**
	 * Returns the requests one token window admits: {@code floor(tokens / tokenCost)}.
	 * @return at least 1
	 */
	public long requestsPerTokenWindow() {
		return this.tokens / this.tokenCost;
	}

	/**
	 * Returns the earliest end of the windows that admit {@code backlog} requests started together: request
	 * {@code k} (from 0) cannot be admitted before request window {@code floor(k / requests)} nor before token window
	 * {@code floor(k / requestsPerTokenWindow())}, so the last one is admitted in the later of its two windows, and the
	 * backlog has been admitted by that window's end. With equal windows of length {@code W} admitting {@code a}
	 * requests (the scarcer of the two), that is {@code ceil(backlog / a) × W}.
	 * @param backlog the requests, at least 1
	 * @return the bound, from the workload's start
	 */
	public Duration bound(long backlog) {
		if (backlog < 1) {
			throw new IllegalArgumentException("backlog must be at least 1 but was " + backlog);
		}
		long last = backlog - 1;
		Duration byRequests = this.requestWindow.multipliedBy(last / this.requests + 1);
		Duration byTokens = this.tokenWindow.multipliedBy(last / requestsPerTokenWindow() + 1);
		return (byRequests.compareTo(byTokens) >= 0) ? byRequests : byTokens;
	}

	/**
	 * Returns the earliest instant the last of {@code backlog} requests started together can be admitted: the start
	 * of the window {@link #bound} ends. A client that sends each window's share the moment it opens finishes a
	 * round trip after it; one that spreads each window's share over the window finishes near {@link #bound}.
	 * @param backlog the requests, at least 1
	 * @return the instant, from the workload's start
	 */
	public Duration earliestLastAdmission(long backlog) {
		if (backlog < 1) {
			throw new IllegalArgumentException("backlog must be at least 1 but was " + backlog);
		}
		long last = backlog - 1;
		Duration byRequests = this.requestWindow.multipliedBy(last / this.requests);
		Duration byTokens = this.tokenWindow.multipliedBy(last / requestsPerTokenWindow());
		return (byRequests.compareTo(byTokens) >= 0) ? byRequests : byTokens;
	}

}

package io.github.retryafter.engine;

import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a provider's API promises about its requests, beyond HTTP: which refusals mean a request was not processed,
 * so that it may be sent again whatever its method, and which request header it reads an attempt's retry count from.
 * <p>
 * With {@link #retryRefusedRequests()} on, a response whose status is one of {@link #refusalStatuses()} (by default
 * {@code 429}) is retryable and replay-safe for any method, {@code POST} and {@code PATCH} without an idempotency key
 * included: the provider refused the request before processing it. Anything else is unchanged: a timeout, a lost
 * response, or another status on a method that is not replay-safe still ends the operation
 * ({@link Outcome#OUTCOME_UNKNOWN} or {@link Outcome#NOT_RETRYABLE}), and a body that cannot be sent again is never
 * sent again. Counting: an attempt header carries the number of retries before its attempt, {@code 0} on the first.
 * <p>
 * Immutable and thread-safe. {@link #NONE} is what every policy has unless given others.
 *
 * @param retryRefusedRequests whether a refusal is retried for any method
 * @param refusalStatuses the statuses that mean the provider refused the request before processing it
 * @param attemptHeader the request header each attempt's retry count is sent in, if the provider asks for one
 */
public record ProviderConventions(boolean retryRefusedRequests, Set<Integer> refusalStatuses,
		Optional<String> attemptHeader) {

	/** The refusal statuses unless configured: {@code 429 Too Many Requests}. */
	public static final Set<Integer> DEFAULT_REFUSAL_STATUSES = Set.of(429);

	/** No refusal retried for an unsafe method, {@code 429} as the refusal status, no attempt header. */
	public static final ProviderConventions NONE = new ProviderConventions(false, DEFAULT_REFUSAL_STATUSES,
			Optional.empty());

	/**
	 * Checks and copies the arguments.
	 * @param retryRefusedRequests whether a refusal is retried for any method
	 * @param refusalStatuses the statuses that mean the provider refused the request before processing it
	 * @param attemptHeader the request header each attempt's retry count is sent in
	 * @throws IllegalArgumentException if a status is outside 400–599 or the header is not an HTTP field name
	 */
	public ProviderConventions {
		refusalStatuses = Set.copyOf(PolicyChecks.statuses("refusalStatuses", refusalStatuses));
		Objects.requireNonNull(attemptHeader, "attemptHeader");
		attemptHeader.ifPresent((name) -> PolicyChecks.fieldName("attemptHeader", name));
	}

	/**
	 * Returns these conventions with refusals retried for any method, or not.
	 * @param retry whether a refusal is retried for any method
	 * @return the conventions
	 */
	public ProviderConventions withRetryRefusedRequests(boolean retry) {
		return new ProviderConventions(retry, this.refusalStatuses, this.attemptHeader);
	}

	/**
	 * Returns these conventions with other refusal statuses.
	 * @param statuses 4xx and 5xx codes
	 * @return the conventions
	 * @throws IllegalArgumentException if a status is outside 400–599
	 */
	public ProviderConventions withRefusalStatuses(Collection<Integer> statuses) {
		return new ProviderConventions(this.retryRefusedRequests, new TreeSet<>(statuses), this.attemptHeader);
	}

	/**
	 * Returns these conventions with an attempt header, or none.
	 * @param header an HTTP field name, or {@code null} for none
	 * @return the conventions
	 * @throws IllegalArgumentException if {@code header} is not an HTTP field name
	 */
	public ProviderConventions withAttemptHeader(String header) {
		return new ProviderConventions(this.retryRefusedRequests, this.refusalStatuses, Optional.ofNullable(header));
	}

	/**
	 * Returns whether an attempt's outcome is a refusal these conventions retry for any method: a response whose
	 * status is a refusal status, with {@link #retryRefusedRequests()} on. A failure (a timeout, a lost response) is
	 * never one.
	 * @param outcome the attempt's outcome
	 * @return whether the provider refused the request before processing it
	 */
	public boolean refusedBeforeProcessing(AttemptOutcome outcome) {
		return this.retryRefusedRequests && outcome instanceof AttemptOutcome.Response response
				&& this.refusalStatuses.contains(response.status());
	}

	/** The statuses the default classifier retries: {@code retryable}, and the refusal statuses when retried. */
	Set<Integer> retryable(Set<Integer> retryable) {
		if (!this.retryRefusedRequests || retryable.containsAll(this.refusalStatuses)) {
			return retryable;
		}
		Set<Integer> union = new TreeSet<>(retryable);
		union.addAll(this.refusalStatuses);
		return union;
	}

}

package io.github.retryafter.engine;

import java.util.Objects;
import java.util.Optional;

/**
 * How every transport ends an operation for its caller, written once: a response the operation ended on is handed
 * back as the client made it, with retry-after's account attached only when that account {@link #saysMore says more}
 * than the response; an operation that ended without a response throws the last attempt's own exception with the
 * account {@link #attach attached}, never instead of it. What the account is (an exception of the transport's own
 * type, carrying the {@link NotBefore} instant) is the transport's. Stateless.
 */
public final class Ending {

	private Ending() {
	}

	/**
	 * Returns whether the way {@code operation} ended says more than the response it ended on: it retried, it stopped
	 * for a reason of its own, or the provider named an instant an outer layer must respect. A success, and a first
	 * response that was simply not retryable (a {@code 404}), say nothing more: the caller gets exactly what the
	 * client made of them, and nothing is built for them.
	 * @param operation the operation, ended
	 * @param stop how it ended
	 * @return whether to attach the account to what the caller gets
	 */
	public static boolean saysMore(RetryOperation operation, Decision.Stop stop) {
		Outcome outcome = stop.outcome();
		if (outcome == Outcome.SUCCESS) {
			return false;
		}
		return outcome != Outcome.NOT_RETRYABLE || operation.attempts() > 1 || operation.notBefore().isPresent();
	}

	/**
	 * Returns the sentence every transport's account of an ending says, the same whatever the client: the provider,
	 * the outcome, the attempts sent, the engine's reason, and the instant the provider named when there is one.
	 * @param provider the provider the request was routed to
	 * @param outcome how the operation ended
	 * @param attempts how many requests were sent
	 * @param reason why, with the numbers
	 * @param notBefore the instant the provider named, which an outer retry layer must not retry before
	 * @return the message of the transport's account
	 */
	public static String describe(String provider, Outcome outcome, int attempts, String reason,
			Optional<NotBefore> notBefore) {
		return "retry-after stopped the call to provider '" + provider + "' with " + outcome + " after " + attempts
				+ " attempt(s): " + reason
				+ notBefore.map((at) -> "; the provider asked for no request before " + at.instant()).orElse("");
	}

	/**
	 * Returns what the caller of an operation that ended without a response is told: the last attempt's own
	 * exception, with {@code account} attached as a suppressed exception, or {@code account} alone when no attempt
	 * threw (nothing was sent, or the operation was refused before its next attempt).
	 * @param failure what the last attempt threw, or {@code null}
	 * @param account the transport's account of how the operation ended
	 * @return the exception to throw or signal
	 */
	public static Throwable attach(Throwable failure, Throwable account) {
		Objects.requireNonNull(account, "account");
		if (failure == null) {
			return account;
		}
		failure.addSuppressed(account);
		return failure;
	}

}

package io.github.retryafter.boot.retry;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;

import org.springframework.util.ClassUtils;

import io.github.retryafter.boot.RetryAfterOutcomeException;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.okhttp.RetryOutcomeException;

/**
 * What an operation that gave up handed on, as an outer layer finds it on the exception it caught: the provider's
 * instant, the provider it belongs to and whether it ended {@code WAIT_TOO_LONG}. Searched as
 * {@link NotBefore#find(Throwable)} searches (the exception, its causes and their suppressed exceptions, breadth first,
 * at most 32 looked at). Immutable.
 *
 * @param notBefore the provider's instant
 * @param provider the provider named on the hand-over, empty when the carrier names none
 * @param waitTooLong whether the operation ended because the provider asked for more than its {@code max-wait}
 */
record HandOver(NotBefore notBefore, Optional<String> provider, boolean waitTooLong) {

	private static final int MAX_SEARCHED = 32;

	private static final boolean OKHTTP_PRESENT = ClassUtils.isPresent("okhttp3.Response",
			HandOver.class.getClassLoader());

	/**
	 * Finds what a failure hands on.
	 * @param failure the exception a call ended with
	 * @return the first carrier's hand-over with an instant, empty when none carries one
	 */
	static Optional<HandOver> find(Throwable failure) {
		if (!(failure instanceof NotBefore.Carrier) && failure.getCause() == null
				&& failure.getSuppressed().length == 0) {
			// the common failure (an I/O exception of its own): no search, nothing allocated
			return Optional.empty();
		}
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		Deque<Throwable> queue = new ArrayDeque<>();
		queue.add(failure);
		while (!queue.isEmpty() && seen.size() < MAX_SEARCHED) {
			Throwable next = queue.poll();
			if (!seen.add(next)) {
				continue;
			}
			if (next instanceof NotBefore.Carrier carrier && carrier.notBefore().isPresent()) {
				return Optional.of(of(carrier, carrier.notBefore().get()));
			}
			if (next.getCause() != null) {
				queue.add(next.getCause());
			}
			Collections.addAll(queue, next.getSuppressed());
		}
		return Optional.empty();
	}

	private static HandOver of(NotBefore.Carrier carrier, NotBefore notBefore) {
		if (carrier instanceof RetryAfterOutcomeException spring) {
			return new HandOver(notBefore, Optional.of(spring.outcome().provider()),
					spring.outcome().outcome() == Outcome.WAIT_TOO_LONG);
		}
		if (OKHTTP_PRESENT) {
			Optional<HandOver> okhttp = OkHttpCarrier.of(carrier, notBefore);
			if (okhttp.isPresent()) {
				return okhttp.get();
			}
		}
		return new HandOver(notBefore, Optional.empty(), false);
	}

	/** Loaded only when OkHttp is on the class path: its exception type names OkHttp's. */
	private static final class OkHttpCarrier {

		static Optional<HandOver> of(NotBefore.Carrier carrier, NotBefore notBefore) {
			if (carrier instanceof RetryOutcomeException okhttp) {
				return Optional.of(new HandOver(notBefore, Optional.of(okhttp.provider()),
						okhttp.outcome() == Outcome.WAIT_TOO_LONG));
			}
			return Optional.empty();
		}

	}

}

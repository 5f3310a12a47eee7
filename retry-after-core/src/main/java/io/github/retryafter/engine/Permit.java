package io.github.retryafter.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

import io.github.retryafter.pacing.GateHold;

/**
 * The answer to {@link RetryOperation#beforeAttempt()}: send the attempt with this timeout, wait for the provider's
 * gate and ask again, or do not send it.
 */
public sealed interface Permit {

	/**
	 * Send the attempt. A transport bounds it by {@code timeout} (lowering the client's own timeouts to it, or
	 * ending it itself) unless {@code clientTimeouts} says the client's own timeouts alone bound it, and writes the
	 * fields the attempt must carry ({@link #writeFields}) on the request it sends.
	 * @param attempt the attempt number, from 1
	 * @param timeout the time the attempt is given: {@code min(attemptTimeout, remaining deadline - reserve)}, or,
	 * when the engine keeps the client's own timeouts ({@link RetryEngine#clientTimeouts()}), what is left of the
	 * deadline
	 * @param clientTimeouts whether the client's own timeouts alone bound this attempt: the transport neither lowers
	 * them nor ends the attempt itself (the first attempt, when the engine keeps the client's own timeouts)
	 * @param attemptHeader the request header in which the provider reads how many retries were sent before this
	 * attempt ({@link ProviderConventions#attemptHeader()}), empty when it asks for none
	 */
	record Proceed(int attempt, Duration timeout, boolean clientTimeouts,
			Optional<String> attemptHeader) implements Permit {

		/**
		 * Checks the arguments.
		 * @param attempt the attempt number, from 1
		 * @param timeout the time the attempt is given
		 * @param clientTimeouts whether the client's own timeouts alone bound this attempt
		 * @param attemptHeader the provider's attempt header, empty for none
		 */
		public Proceed {
			Objects.requireNonNull(timeout, "timeout");
			Objects.requireNonNull(attemptHeader, "attemptHeader");
			if (attempt < 1) {
				throw new IllegalArgumentException("attempt must be at least 1 but was " + attempt);
			}
		}

		/**
		 * A permit whose attempt carries no field of retry-after's own.
		 * @param attempt the attempt number, from 1
		 * @param timeout the time the attempt is given
		 * @param clientTimeouts whether the client's own timeouts alone bound this attempt
		 */
		public Proceed(int attempt, Duration timeout, boolean clientTimeouts) {
			this(attempt, timeout, clientTimeouts, Optional.empty());
		}

		/**
		 * A permit bounded by {@code timeout}, whose attempt carries no field of retry-after's own.
		 * @param attempt the attempt number, from 1
		 * @param timeout the time the attempt is given: {@code min(attemptTimeout, remaining deadline - reserve)}
		 */
		public Proceed(int attempt, Duration timeout) {
			this(attempt, timeout, false, Optional.empty());
		}

		/**
		 * Returns the bound the transport puts on the attempt: {@link #timeout()}, or none when the client's own
		 * timeouts alone bound it.
		 * @return the bound, empty for none
		 */
		public Optional<Duration> bound() {
			return this.clientTimeouts ? Optional.empty() : Optional.of(this.timeout);
		}

		/**
		 * Returns whether {@link #writeFields} writes anything, so that a transport whose requests are immutable
		 * copies one only when it must.
		 * @return whether the attempt carries a field of retry-after's own
		 */
		public boolean hasFields() {
			return this.attemptHeader.isPresent();
		}

		/**
		 * Writes the request fields this attempt must carry, replacing any of the same name: the provider's attempt
		 * header with the number of retries sent before it ({@code 0} on the first attempt). The idempotency key is
		 * the operation's, the same on every attempt, and is added once by the request's preparation
		 * (the core's {@code RequestPreparer}); the trace context is the observing transport's.
		 * @param fields sets one request field, replacing its values
		 */
		public void writeFields(BiConsumer<String, String> fields) {
			if (this.attemptHeader.isPresent()) {
				fields.accept(this.attemptHeader.get(), Integer.toString(this.attempt - 1));
			}
		}

	}

	/**
	 * Do not send yet: the provider's gate holds the request. Wait until the engine's ticker reads at least
	 * {@code notBeforeNanos} (cancellably), then call {@link RetryOperation#beforeAttempt()} again. Nothing was counted
	 * or spent: no attempt, no budget token.
	 * @param notBeforeNanos the ticker reading to wait for
	 * @param reason whether the provider is cooling down or the request has a slot in its rate
	 */
	record Wait(long notBeforeNanos, GateHold reason) implements Permit {

		/**
		 * Checks the arguments.
		 * @param notBeforeNanos the ticker reading to wait for
		 * @param reason whether the provider is cooling down or the request has a slot in its rate
		 */
		public Wait {
			Objects.requireNonNull(reason, "reason");
		}

	}

	/**
	 * Do not send: the operation is over.
	 * @param stop how it ended
	 */
	record Refused(Decision.Stop stop) implements Permit {

		/**
		 * Checks the arguments.
		 * @param stop how it ended
		 */
		public Refused {
			Objects.requireNonNull(stop, "stop");
		}

	}

}

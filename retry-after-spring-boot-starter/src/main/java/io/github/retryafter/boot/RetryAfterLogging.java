package io.github.retryafter.boot;

import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.slf4j.MDC;

import org.springframework.util.ClassUtils;

import io.github.retryafter.engine.AttemptOutcome;
import io.github.retryafter.engine.CooldownStartedEvent;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;
import io.github.retryafter.engine.WaitedEvent;

/**
 * Logs the engine's decisions under the category {@code io.github.retryafter}: one DEBUG line per scheduled retry (the
 * delay planned), per retry sent (the wait as it happened, and its cause), per provider's gate closed and per refused
 * hint, and one DEBUG line per operation that did not succeed ({@code OUTCOME_UNKNOWN} at WARN, since a person may
 * have to look the outcome up). Each line names the provider, the host (never a path, query or user info),
 * the status and the attempt; while it is written, the MDC (with SLF4J present) holds {@value #PROVIDER},
 * {@value #OPERATION} (an id of the logical operation, the same on each of its lines) and {@value #ATTEMPT}, so Boot's
 * structured logging shows them as fields on whichever thread the decision was made. Nothing is formatted unless the
 * level is on. Thread-safe.
 */
public final class RetryAfterLogging implements RetryListener {

	/** The MDC key of the provider's name. */
	public static final String PROVIDER = "retry.after.provider";

	/** The MDC key of the logical operation's id. */
	public static final String OPERATION = "retry.after.operation";

	/** The MDC key of the attempt's number. */
	public static final String ATTEMPT = "retry.after.attempt";

	private static final boolean MDC_PRESENT = ClassUtils.isPresent("org.slf4j.MDC",
			RetryAfterLogging.class.getClassLoader());

	private static final Log logger = LogFactory.getLog("io.github.retryafter");

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		if (logger.isDebugEnabled()) {
			String line = subject(event.spec()) + " attempt " + event.attempt() + " failed; retry planned in "
					+ event.delay().toMillis() + " ms (" + event.source() + "), " + status(event.outcome())
					+ event.plan()
						.map((plan) -> ", server floor " + plan.floor().toMillis() + " ms"
								+ plan.skew().map((skew) -> plan.skewWithinDatePrecision()
										? ", clock within the Date's one-second precision"
										: ", clock skew " + skew.toMillis() + " ms").orElse(""))
						.orElse("")
					+ ", " + event.remainingDeadline().toMillis() + " ms of the deadline left";
			log(event.spec(), event.attempt(), () -> logger.debug(line));
		}
	}

	@Override
	public void onWaited(WaitedEvent event) {
		if (logger.isDebugEnabled()) {
			StringBuilder line = new StringBuilder(subject(event.spec())).append(" attempt ")
				.append(event.attempt())
				.append(" sent after waiting ")
				.append(event.waited().toMillis())
				.append(" ms (")
				.append(event.cause().tagValue())
				.append(')');
			if (event.parts().size() > 1) {
				String parts = event.parts()
					.entrySet()
					.stream()
					.map((part) -> part.getValue().toMillis() + " ms " + part.getKey().tagValue())
					.collect(Collectors.joining(", then "));
				line.append(": ").append(parts);
			}
			log(event.spec(), event.attempt(), () -> logger.debug(line));
		}
	}

	@Override
	public void onCooldownStarted(CooldownStartedEvent event) {
		if (logger.isDebugEnabled()) {
			String line = subject(event.spec()) + " attempt " + event.attempt() + " got status " + event.status()
					+ " whose " + event.field() + " closed the gate of '" + event.scope() + "' for "
					+ event.closedFor().toMillis() + " ms (" + event.cause().tagValue() + ")";
			log(event.spec(), event.attempt(), () -> logger.debug(line));
		}
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		if (logger.isDebugEnabled() && event.hintError().isPresent() && event.stop().isEmpty()) {
			String line = subject(event.spec()) + " attempt " + event.attempt() + " got an unusable Retry-After ("
					+ event.hintError().get() + "), falling back to backoff: " + event.reason();
			log(event.spec(), event.attempt(), () -> logger.debug(line));
		}
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		if (event.outcome() == Outcome.OUTCOME_UNKNOWN) {
			if (logger.isWarnEnabled()) {
				String line = subject(event.spec()) + " may have been applied and was not repeated (attempt "
						+ event.attempts() + ", " + event.lastOutcome().map(RetryAfterLogging::status).orElse("no answer")
						+ "): " + event.reason();
				log(event.spec(), event.attempts(), () -> logger.warn(line));
			}
		}
		else if (event.outcome() != Outcome.SUCCESS && logger.isDebugEnabled()) {
			String line = subject(event.spec()) + " ended " + event.outcome() + " after " + event.attempts()
					+ " attempt(s), the last " + event.lastOutcome().map(RetryAfterLogging::status).orElse("not sent")
					+ ": " + event.reason();
			log(event.spec(), event.attempts(), () -> logger.debug(line));
		}
	}

	private static String subject(OperationSpec spec) {
		return "retry-after: provider '" + spec.provider() + "'" + spec.host().map((host) -> " host '" + host + "'")
			.orElse("") + " " + spec.method();
	}

	private static String status(AttemptOutcome outcome) {
		if (outcome instanceof AttemptOutcome.Response response) {
			return "status " + response.status();
		}
		AttemptOutcome.Failure failure = (AttemptOutcome.Failure) outcome;
		return failure.kind() + " (" + failure.cause().getClass().getSimpleName() + ")";
	}

	/** Writes a line with the operation's fields in the MDC, and takes them out again. */
	private static void log(OperationSpec spec, int attempt, Runnable line) {
		if (!MDC_PRESENT) {
			line.run();
			return;
		}
		String provider = MDC.get(PROVIDER);
		String operation = MDC.get(OPERATION);
		String attemptBefore = MDC.get(ATTEMPT);
		MDC.put(PROVIDER, spec.provider());
		MDC.put(OPERATION, Integer.toHexString(System.identityHashCode(spec)));
		MDC.put(ATTEMPT, Integer.toString(attempt));
		try {
			line.run();
		}
		finally {
			restore(PROVIDER, provider);
			restore(OPERATION, operation);
			restore(ATTEMPT, attemptBefore);
		}
	}

	/** Puts back what the MDC held under {@code key} before a line was written, or nothing. */
	private static void restore(String key, String previous) {
		if (previous != null) {
			MDC.put(key, previous);
		}
		else {
			MDC.remove(key);
		}
	}

}

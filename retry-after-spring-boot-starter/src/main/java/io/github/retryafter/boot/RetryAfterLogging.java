package io.github.retryafter.boot;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * Logs the engine's decisions under the category {@code io.github.retryafter}: one DEBUG line per scheduled retry and
 * per refused hint, and one DEBUG line per operation that did not succeed ({@code OUTCOME_UNKNOWN} at WARN, since a
 * person may have to look the outcome up). Nothing is formatted unless the level is on. Thread-safe.
 */
public final class RetryAfterLogging implements RetryListener {

	private static final Log logger = LogFactory.getLog("io.github.retryafter");

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		if (logger.isDebugEnabled()) {
			logger.debug("retry-after: provider '" + event.spec().provider() + "' " + event.spec().method()
					+ " attempt " + event.attempt() + " failed; retrying in " + event.delay().toMillis() + " ms ("
					+ event.source() + ")" + event.plan()
						.map((plan) -> ", server floor " + plan.floor().toMillis() + " ms"
								+ plan.skew().map((skew) -> ", clock skew " + skew.toMillis() + " ms").orElse(""))
						.orElse("")
					+ ", " + event.remainingDeadline().toMillis() + " ms of the deadline left");
		}
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		if (logger.isDebugEnabled() && event.hintError().isPresent() && event.stop().isEmpty()) {
			logger.debug("retry-after: provider '" + event.spec().provider() + "' sent an unusable Retry-After ("
					+ event.hintError().get() + "), falling back to backoff: " + event.reason());
		}
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		if (event.outcome() == Outcome.OUTCOME_UNKNOWN) {
			if (logger.isWarnEnabled()) {
				logger.warn("retry-after: provider '" + event.spec().provider() + "' " + event.spec().method()
						+ " may have been applied and was not repeated: " + event.reason());
			}
		}
		else if (event.outcome() != Outcome.SUCCESS && logger.isDebugEnabled()) {
			logger.debug("retry-after: provider '" + event.spec().provider() + "' " + event.spec().method() + " ended "
					+ event.outcome() + " after " + event.attempts() + " attempt(s): " + event.reason());
		}
	}

}

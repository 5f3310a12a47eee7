package io.github.retryafter.boot.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.retryafter.engine.AttemptEvent;
import io.github.retryafter.engine.OperationFinishedEvent;
import io.github.retryafter.engine.RefusalEvent;
import io.github.retryafter.engine.RetryListener;
import io.github.retryafter.engine.RetryScheduledEvent;

/**
 * Records every engine event, for assertions.
 */
public final class RecordingListener implements RetryListener {

	public final List<AttemptEvent> attempts = new CopyOnWriteArrayList<>();

	public final List<RetryScheduledEvent> retries = new CopyOnWriteArrayList<>();

	public final List<RefusalEvent> refusals = new CopyOnWriteArrayList<>();

	public final List<OperationFinishedEvent> finished = new CopyOnWriteArrayList<>();

	@Override
	public void onAttempt(AttemptEvent event) {
		this.attempts.add(event);
	}

	@Override
	public void onRetryScheduled(RetryScheduledEvent event) {
		this.retries.add(event);
	}

	@Override
	public void onRefusal(RefusalEvent event) {
		this.refusals.add(event);
	}

	@Override
	public void onOperationFinished(OperationFinishedEvent event) {
		this.finished.add(event);
	}

	public OperationFinishedEvent last() {
		return this.finished.get(this.finished.size() - 1);
	}

}

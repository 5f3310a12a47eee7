package io.github.retryafter;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.github.retryafter.internal.Saturating;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CancellationTests {

	@Test
	void aCancelledSwitchAnswersAtOnceWhateverTheTimeout() throws InterruptedException {
		Cancellation cancellation = Cancellation.create();
		cancellation.cancel();

		assertThat(cancellation.awaitCancellation(Saturating.MAX_DURATION)).isTrue();
		assertThat(cancellation.awaitCancellation(Duration.ZERO)).isTrue();
	}

	@Test
	void aWaitLongerThanALongOfNanosWaitsForTheCancelInsteadOfWrappingToNoWaitAtAll() throws InterruptedException {
		Cancellation cancellation = Cancellation.create();
		AtomicReference<Object> answer = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				answer.set(cancellation.awaitCancellation(Saturating.MAX_DURATION));
			}
			catch (InterruptedException ex) {
				answer.set(ex);
			}
		});
		waiter.start();
		// No clock involved: the waiter either is parked in its timed wait or has already returned.
		while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.isAlive()) {
			Thread.onSpinWait();
		}
		cancellation.cancel();
		waiter.join();

		assertThat(answer.get()).isEqualTo(true);
	}

}

package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's thread, driven on a fake clock: tasks run as soon as it is free, the tick once per interval, and what
 * either throws goes to the failure handler. One test starts the real thread and waits for a task it hands over.
 */
class FleetWorkerTests {

	private static final Duration INTERVAL = Duration.ofMillis(50);

	private final AtomicLong nanos = new AtomicLong(-1_000L);

	private final List<String> ran = new ArrayList<>();

	private final List<RuntimeException> failures = new ArrayList<>();

	private final FleetWorker worker = new FleetWorker(this.nanos::get, INTERVAL, () -> this.ran.add("tick"),
			this.failures::add);

	@Test
	void theFirstTickRunsAtOnceThenOneEveryIntervalOnTheInjectedClock() {
		assertThat(this.worker.runDue()).isEqualTo(INTERVAL.toNanos());
		this.nanos.addAndGet(INTERVAL.toNanos() - 1);
		assertThat(this.worker.runDue()).isEqualTo(1);
		this.nanos.addAndGet(1);
		this.worker.runDue();
		assertThat(this.ran).containsExactly("tick", "tick");
	}

	@Test
	void handedOverTasksRunAtTheNextRunInOrderBeforeADueTick() {
		this.worker.runDue();
		this.worker.execute(() -> this.ran.add("a"));
		this.worker.execute(() -> this.worker.execute(() -> this.ran.add("c")));
		this.worker.execute(() -> this.ran.add("b"));
		this.nanos.addAndGet(INTERVAL.toNanos());
		this.worker.runDue();
		assertThat(this.ran).containsExactly("tick", "a", "b", "c", "tick");
	}

	@Test
	void whatATaskOrTheTickThrowsGoesToTheFailureHandlerAndTheWorkerGoesOn() {
		FleetWorker failing = new FleetWorker(this.nanos::get, INTERVAL, () -> {
			throw new IllegalStateException("tick");
		}, this.failures::add);
		failing.execute(() -> {
			throw new IllegalStateException("task");
		});
		failing.execute(() -> this.ran.add("after"));
		failing.runDue();
		assertThat(this.failures).extracting(RuntimeException::getMessage).containsExactly("task", "tick");
		assertThat(this.ran).containsExactly("after");
	}

	@Test
	void aStoppedWorkerDropsWhatIsHandedOverAndTicksNoMore() {
		this.worker.stop(Duration.ZERO);
		this.worker.execute(() -> this.ran.add("dropped"));
		this.worker.runDue();
		assertThat(this.ran).isEmpty();
	}

	@Test
	void aStartedWorkerRunsAHandedOverTaskWithoutWaitingForTheNextTick() throws InterruptedException {
		FleetWorker started = new FleetWorker(System::nanoTime, Duration.ofHours(1), () -> {
		}, this.failures::add);
		started.start((task) -> {
			Thread thread = new Thread(task, "fleet-worker-test");
			thread.setDaemon(true);
			return thread;
		});
		try {
			CountDownLatch ran = new CountDownLatch(1);
			started.execute(ran::countDown);
			assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			started.stop(Duration.ofSeconds(1));
		}
	}

}

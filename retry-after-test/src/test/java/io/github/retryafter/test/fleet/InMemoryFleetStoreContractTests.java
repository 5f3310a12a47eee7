package io.github.retryafter.test.fleet;

import java.time.Duration;

import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetStore;
import io.github.retryafter.fleet.InMemoryFleetStore;
import io.github.retryafter.test.FakeClock;

/**
 * The store contract on the in-memory store, on a fake clock: what the simulator and the core's tests run on.
 */
class InMemoryFleetStoreContractTests extends FleetStoreContract {

	private final FakeClock clock = FakeClock.create();

	private final InMemoryFleetStore store = new InMemoryFleetStore(this.clock);

	@Override
	protected FleetStore join(String instanceId) {
		return this.store.join(instanceId);
	}

	@Override
	protected void corrupt(FleetBucket bucket) {
		this.store.corrupt(bucket);
	}

	@Override
	protected void corrupt(FleetStore.ProviderKey key, String provider) {
		this.store.corrupt(key, provider);
	}

	@Override
	protected void settle(FleetStore... members) {
		for (FleetStore member : members) {
			InMemoryFleetStore.Member link = (InMemoryFleetStore.Member) member;
			link.runTasks();
			link.flush();
			link.runTasks();
		}
	}

	@Override
	protected void deliver(FleetStore... members) {
		for (FleetStore member : members) {
			((InMemoryFleetStore.Member) member).runTasks();
		}
	}

	@Override
	protected void elapse(Duration duration) {
		this.clock.advance(duration);
	}

	@Override
	protected void leave(FleetStore member) {
		((InMemoryFleetStore.Member) member).leave();
	}

	@Override
	protected void fallBackAndRejoin(FleetStore member, Runnable whileAway) {
		InMemoryFleetStore.Member link = (InMemoryFleetStore.Member) member;
		link.fallBack();
		whileAway.run();
		link.rejoin();
	}

}

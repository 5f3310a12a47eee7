package io.github.retryafter.fleet;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The fleet's size as this instance counts it: each heartbeat records this instance as a member and counts the
 * members seen within {@link #MEMBER_WINDOW}. A count that is not a number, or not between 1 and
 * {@link #MAX_INSTANCES}, is not the fleet's (the members' key holds what the fleet did not write): the last count
 * stands and the key is reported once, until a valid count again. Thread-safe.
 */
final class FleetHeartbeat {

	/**
	 * How long an instance counts as a member of the fleet after its last heartbeat: long enough that an instance on
	 * its local fallback is still counted while it spends its share, short enough that a fleet that shrank soon gives
	 * the remaining instances larger shares.
	 */
	static final Duration MEMBER_WINDOW = Duration.ofSeconds(30);

	/**
	 * The most instances a count may name: a count beyond it is not the fleet's, and the last count stands (a larger
	 * count would give every instance a share near zero).
	 */
	static final int MAX_INSTANCES = 10_000;

	private final FleetLink link;

	private final FleetKeys keys;

	// the fleet's instances seen within MEMBER_WINDOW, as last counted; 1 until counted
	private volatile int instances = 1;

	// whether the members' key holds a value the fleet did not write
	private boolean membersBad;

	FleetHeartbeat(FleetLink link, FleetKeys keys) {
		this.link = link;
		this.keys = keys;
	}

	/** Counts the fleet's instances, this one included; nothing changes when the store does not answer. */
	void beat() {
		Optional<OptionalLong> reply = this.link.countMembers(MEMBER_WINDOW);
		reply.ifPresent(this::counted);
	}

	private synchronized void counted(OptionalLong counted) {
		String key = this.link.keyName("members", "instances");
		if (counted.isPresent() && counted.getAsLong() >= 1 && counted.getAsLong() <= MAX_INSTANCES) {
			this.instances = (int) counted.getAsLong();
			if (this.membersBad) {
				this.membersBad = false;
				this.keys.storeKeyValid(key);
			}
		}
		else if (!this.membersBad) {
			// the last count stands
			this.membersBad = true;
			this.keys.storeKeyInvalid(key);
		}
	}

	/** The fleet's instances as last counted: at least 1, at most {@link #MAX_INSTANCES}. */
	int instances() {
		return this.instances;
	}

}

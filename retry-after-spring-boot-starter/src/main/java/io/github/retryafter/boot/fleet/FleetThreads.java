package io.github.retryafter.boot.fleet;

import java.util.function.BooleanSupplier;

import reactor.core.scheduler.Schedulers;

/**
 * Which threads may wait for the fleet's store: every thread but those Reactor marks non-blocking (its parallel
 * scheduler, Reactor Netty's event loops), when Reactor is on the classpath. The transport's knowledge, handed to the
 * store-neutral budget and to the store, which import no transport. Stateless and thread-safe.
 */
public final class FleetThreads {

	/** The type whose presence decides whether Reactor's marks are read. */
	static final String REACTOR_SCHEDULERS = "reactor.core.scheduler.Schedulers";

	private FleetThreads() {
	}

	/**
	 * Returns the check: on the calling thread, whether it may block.
	 * @param classLoader where to look for Reactor
	 * @return {@code false} on Reactor's non-blocking threads when Reactor is present, {@code true} everywhere else
	 */
	public static BooleanSupplier mayBlock(ClassLoader classLoader) {
		return isPresent(classLoader) ? () -> !ReactorThreads.nonBlocking() : () -> true;
	}

	private static boolean isPresent(ClassLoader classLoader) {
		try {
			Class.forName(REACTOR_SCHEDULERS, false, classLoader);
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/** Reactor's thread marks, loaded only when Reactor is present. */
	private static final class ReactorThreads {

		static boolean nonBlocking() {
			return Schedulers.isInNonBlockingThread();
		}

	}

}

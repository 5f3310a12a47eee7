package io.github.retryafter.boot.fleet;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Reflection hints for a native image: {@link FleetThreads} looks Reactor's {@code Schedulers} up by name
 * ({@code Class.forName}) to learn whether Reactor's thread marks are available, and a native image answers such a
 * lookup only for a type it was told about.
 * <p>
 * Stateless and thread-safe.
 */
public class FleetThreadsRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * Creates the registrar (instantiated by Spring's AOT processing).
	 */
	public FleetThreadsRuntimeHints() {
	}

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.reflection().registerType(TypeReference.of(FleetThreads.REACTOR_SCHEDULERS));
	}

}

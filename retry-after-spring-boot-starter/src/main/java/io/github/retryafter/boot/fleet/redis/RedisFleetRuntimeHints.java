package io.github.retryafter.boot.fleet.redis;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Reflection hints for a native image: {@link RedisFleet} looks Reactor's {@code Schedulers} up by name
 * ({@code Class.forName}) to learn whether Lettuce's reactive API is usable, and a native image answers such a
 * lookup only for a type it was told about. (Its Lua scripts are Java text blocks, not resources: they need no
 * resource hint.)
 * <p>
 * Stateless and thread-safe.
 */
public class RedisFleetRuntimeHints implements RuntimeHintsRegistrar {

	/** The type whose presence {@link RedisFleet} checks by name. */
	static final String REACTOR_SCHEDULERS = "reactor.core.scheduler.Schedulers";

	/**
	 * Creates the registrar (instantiated by Spring's AOT processing).
	 */
	public RedisFleetRuntimeHints() {
	}

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.reflection().registerType(TypeReference.of(REACTOR_SCHEDULERS));
	}

}

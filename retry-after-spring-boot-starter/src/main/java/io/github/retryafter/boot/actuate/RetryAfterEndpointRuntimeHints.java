package io.github.retryafter.boot.actuate;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Reflection hints for a native image: the descriptors that the {@code retryafter} and {@code retryafterevents}
 * endpoints return are written to JSON by Jackson, which reads each record's components and accessors by
 * reflection. Registered for every nested type (providers, budgets, pacing, events), whether or not the endpoint bean
 * itself is processed ahead of time (an application may define its own).
 * <p>
 * Stateless and thread-safe.
 */
public class RetryAfterEndpointRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * Creates the registrar (instantiated by Spring's AOT processing).
	 */
	public RetryAfterEndpointRuntimeHints() {
	}

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				RetryAfterEndpoint.RetryAfterDescriptor.class, RetryAfterEndpoint.ProviderDescriptor.class,
				RetryAfterEventsEndpoint.EventsDescriptor.class);
	}

}

package io.github.retryafter.boot.metrics;

import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * One provider's series of one meter tagged by an enum: a value's series is registered on the value's first event,
 * in every registry bound by then, and in each registry bound later; a value that never happens has no series. So a
 * scrape holds what happened, and the series stay bounded: at most one per value of the enum for each configured
 * provider. Thread-safe: the state of a value that has happened is one volatile read; a first event, and binding, take
 * the lock of the registries they share.
 * @param <E> the enum whose values tag the series
 * @param <S> what one value keeps: an adder its function counter reads, the timers it records on
 */
final class SeriesOnFirstUse<E extends Enum<E>, S> {

	/** Registers one value's series in a registry. */
	@FunctionalInterface
	interface Binder<E, S> {

		void bind(MeterRegistry registry, E value, S state);

	}

	private final E[] values;

	private final Supplier<S> newState;

	private final Binder<E, S> binder;

	private final List<MeterRegistry> registries;

	// by ordinal; null until the value's first event: at most values.length entries, never removed
	private final AtomicReferenceArray<S> states;

	/**
	 * Creates the series of one provider's meter.
	 * @param type the enum
	 * @param newState makes a value's state on its first event
	 * @param binder registers a value's series in a registry
	 * @param registries the registries bound so far, shared by every meter of the binder, whose monitor guards them
	 */
	SeriesOnFirstUse(Class<E> type, Supplier<S> newState, Binder<E, S> binder, List<MeterRegistry> registries) {
		this.values = type.getEnumConstants();
		this.newState = newState;
		this.binder = binder;
		this.registries = registries;
		this.states = new AtomicReferenceArray<>(this.values.length);
	}

	/**
	 * Returns a value's state, registering its series in every bound registry if this is its first event.
	 * @param value the value that happened
	 * @return its state
	 */
	S get(E value) {
		S state = this.states.get(value.ordinal());
		return (state != null) ? state : firstUse(value);
	}

	private S firstUse(E value) {
		synchronized (this.registries) {
			S state = this.states.get(value.ordinal());
			if (state == null) {
				state = this.newState.get();
				for (MeterRegistry registry : this.registries) {
					this.binder.bind(registry, value, state);
				}
				this.states.set(value.ordinal(), state);
			}
			return state;
		}
	}

	/**
	 * Registers the series of every value that has happened in a registry being bound; call holding the monitor of
	 * the shared registries, after adding {@code registry} to them.
	 * @param registry the registry being bound
	 */
	void bindTo(MeterRegistry registry) {
		for (E value : this.values) {
			S state = this.states.get(value.ordinal());
			if (state != null) {
				this.binder.bind(registry, value, state);
			}
		}
	}

}

package io.github.retryafter.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A provider that applies creates and remembers every one, keyed by idempotency key the way a provider honouring
 * {@code Idempotency-Key} does: a create whose key it has seen returns the existing record instead of making a second
 * one; a create without a key always makes a new record. So "exactly one effect" is {@code recordsFor(key).size() == 1}.
 * <p>
 * Thread-safe.
 */
public final class FakeProvider {

	private final List<SimRequest> received = new ArrayList<>();

	private final List<Record> records = new ArrayList<>();

	private final Map<String, Record> byKey = new LinkedHashMap<>();

	/**
	 * One effect the provider applied.
	 *
	 * @param id the record's id, {@code rec-1}, {@code rec-2}...
	 * @param idempotencyKey the key of the create that made it
	 * @param body the create's body
	 * @param attempt the attempt that made it
	 */
	public record Record(String id, Optional<String> idempotencyKey, String body, int attempt) {
	}

	/**
	 * Applies a create: returns the record for its key if there is one, otherwise makes a new record.
	 * @param request the request that reached the provider
	 * @return the record, new or existing
	 */
	public synchronized Record apply(SimRequest request) {
		Objects.requireNonNull(request, "request");
		this.received.add(request);
		if (request.idempotencyKey().isPresent()) {
			Record existing = this.byKey.get(request.idempotencyKey().get());
			if (existing != null) {
				return existing;
			}
		}
		Record record = new Record("rec-" + (this.records.size() + 1), request.idempotencyKey(), request.body(),
				request.attempt());
		this.records.add(record);
		request.idempotencyKey().ifPresent((key) -> this.byKey.put(key, record));
		return record;
	}

	/**
	 * Returns every record made, in order.
	 * @return an immutable copy
	 */
	public synchronized List<Record> records() {
		return List.copyOf(this.records);
	}

	/**
	 * Returns the records made by creates with {@code key}: one at most, if the provider dedups correctly.
	 * @param key the idempotency key
	 * @return an immutable list
	 */
	public synchronized List<Record> recordsFor(String key) {
		return this.records.stream().filter((record) -> record.idempotencyKey().filter(key::equals).isPresent()).toList();
	}

	/**
	 * Returns every create that reached the provider, including repeats.
	 * @return an immutable copy
	 */
	public synchronized List<SimRequest> received() {
		return List.copyOf(this.received);
	}

}

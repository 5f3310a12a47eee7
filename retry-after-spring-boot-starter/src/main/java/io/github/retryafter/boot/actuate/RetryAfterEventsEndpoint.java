package io.github.retryafter.boot.actuate;

import java.util.List;
import java.util.Objects;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code retryafterevents} Actuator endpoint ({@code /actuator/retryafterevents}): the most recent events kept by
 * {@link RetryAfterEvents}, newest first, with the buffer's capacity and how many events were recorded in all. An
 * endpoint of its own, so that no provider name can collide with its path.
 */
@Endpoint(id = "retryafterevents")
public class RetryAfterEventsEndpoint {

	private final RetryAfterEvents events;

	/**
	 * Creates the endpoint.
	 * @param events the buffer it shows
	 */
	public RetryAfterEventsEndpoint(RetryAfterEvents events) {
		this.events = Objects.requireNonNull(events, "events");
	}

	/**
	 * Returns the events kept.
	 * @return the description
	 */
	@ReadOperation
	public EventsDescriptor events() {
		return new EventsDescriptor(this.events.capacity(), this.events.recorded(), this.events.recent());
	}

	/**
	 * The events kept.
	 *
	 * @param capacity the most events kept
	 * @param recorded how many were recorded since start, including those since dropped
	 * @param events the events kept, newest first
	 */
	public record EventsDescriptor(int capacity, long recorded, List<RetryAfterEvents.Event> events)
			implements OperationResponseBody {
	}

}

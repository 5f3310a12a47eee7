package io.github.retryafter.request;

import java.util.Map;
import java.util.Optional;

import io.github.retryafter.engine.OperationSpec;

/**
 * One request, ready to run: the route it belongs to, the operation its engine starts, and the idempotency-key header
 * to add to it.
 *
 * @param <P> the type of the route
 * @param route the route picked
 * @param spec the operation for the route's engine
 * @param headerToAdd the idempotency-key header to add to the request, when the request lacks it
 */
public record PreparedRequest<P extends ProviderRoute>(P route, OperationSpec spec,
		Optional<Map.Entry<String, String>> headerToAdd) {

	/**
	 * Describes the request without the idempotency key's value: a key may be a secret a log must not hold.
	 * @return the request, the header shown by its name only
	 */
	@Override
	public String toString() {
		return "PreparedRequest[route=" + this.route.name() + ", spec=" + this.spec + ", headerToAdd="
				+ this.headerToAdd.map(Map.Entry::getKey).orElse("none") + "]";
	}

}

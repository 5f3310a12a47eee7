package io.github.retryafter.boot.autoconfigure;

/**
 * Idempotency keys, opt-in per provider: only a provider known to honour the header may have POST and PATCH
 * retried on the strength of a key added by the client.
 * <p>
 * Bound under {@code retry.after.idempotency-key.*} and {@code retry.after.providers.<name>.idempotency-key.*}.
 */
public class IdempotencyKeyProperties {

	/**
	 * Whether to add an idempotency key to POST and PATCH requests, making them retryable.
	 */
	private Boolean enabled;

	/**
	 * Name of the idempotency-key header.
	 */
	private String header;

	/**
	 * Returns the {@code enabled} setting: whether to add an idempotency key to POST and PATCH requests, making
	 * them retryable.
	 * @return the setting, or {@code null} when not set
	 */
	public Boolean getEnabled() {
		return this.enabled;
	}

	/**
	 * Sets the {@code enabled} setting.
	 * @param enabled whether to add an idempotency key to POST and PATCH requests, making them retryable
	 */
	public void setEnabled(Boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Returns the {@code header} setting: name of the idempotency-key header.
	 * @return the setting, or {@code null} when not set
	 */
	public String getHeader() {
		return this.header;
	}

	/**
	 * Sets the {@code header} setting.
	 * @param header name of the idempotency-key header
	 */
	public void setHeader(String header) {
		this.header = header;
	}

}

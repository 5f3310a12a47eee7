package io.github.retryafter.boot.autoconfigure;

/**
 * Token bucket: first attempts are free, each retry takes a token when it is sent.
 * <p>
 * Bound under {@code retry.after.budget.*}, {@code retry.after.providers.<name>.budget.*} and
 * {@code retry.after.global-budget.*}.
 */
public class BudgetProperties {

	/**
	 * Number of tokens the bucket holds when full; it starts full.
	 */
	private Double capacity;

	/**
	 * Tokens deposited per successful first attempt.
	 */
	private Double depositRatio;

	/**
	 * Tokens added per second whatever the traffic, so a quiet client can still retry.
	 */
	private Double refillPerSecond;

	/**
	 * Returns the {@code capacity} setting: number of tokens the bucket holds when full.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getCapacity() {
		return this.capacity;
	}

	/**
	 * Sets the {@code capacity} setting.
	 * @param capacity number of tokens the bucket holds when full
	 */
	public void setCapacity(Double capacity) {
		this.capacity = capacity;
	}

	/**
	 * Returns the {@code deposit-ratio} setting: tokens deposited per successful first attempt.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getDepositRatio() {
		return this.depositRatio;
	}

	/**
	 * Sets the {@code deposit-ratio} setting.
	 * @param depositRatio tokens deposited per successful first attempt
	 */
	public void setDepositRatio(Double depositRatio) {
		this.depositRatio = depositRatio;
	}

	/**
	 * Returns the {@code refill-per-second} setting: tokens added per second whatever the traffic, so a quiet
	 * client can still retry.
	 * @return the setting, or {@code null} when not set
	 */
	public Double getRefillPerSecond() {
		return this.refillPerSecond;
	}

	/**
	 * Sets the {@code refill-per-second} setting.
	 * @param refillPerSecond tokens added per second whatever the traffic, so a quiet client can still retry
	 */
	public void setRefillPerSecond(Double refillPerSecond) {
		this.refillPerSecond = refillPerSecond;
	}

}

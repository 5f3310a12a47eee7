package io.github.retryafter.simulator;

import java.util.SplittableRandom;

/**
 * What every policy of a {@link FleetSimulation} run meets, drawn once per seed: per client a start and a clock skew,
 * per provider an outage end, all in virtual nanoseconds. Immutable (its arrays are never written after the draw).
 */
record Scenario(long[] start, long[] skew, long[] outageEnd) {

	static Scenario draw(Workload workload, long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		ClientModel client = workload.client();
		ProviderModel provider = workload.provider();
		int n = workload.clients();
		long[] start = new long[n];
		long[] skew = new long[n];
		long[] outageEnd = new long[workload.isolated() ? n : 1];
		double totalWeight = client.skew().stream().mapToDouble(ClientModel.SkewBand::weight).sum();
		long spread = client.startSpread().toNanos();
		long outageMin = provider.outageMin().toNanos();
		long outageRange = provider.outageMax().toNanos() - outageMin;
		if (!workload.isolated()) {
			outageEnd[0] = outageMin + ((outageRange == 0) ? 0 : random.nextLong(outageRange + 1));
		}
		for (int i = 0; i < n; i++) {
			start[i] = (spread == 0) ? 0 : random.nextLong(spread);
			double pick = random.nextDouble() * totalWeight;
			ClientModel.SkewBand band = client.skew().get(client.skew().size() - 1);
			for (ClientModel.SkewBand candidate : client.skew()) {
				if (pick < candidate.weight()) {
					band = candidate;
					break;
				}
				pick -= candidate.weight();
			}
			long low = band.min().toNanos();
			skew[i] = low + (long) (random.nextDouble() * (band.max().toNanos() - low));
			if (workload.isolated()) {
				outageEnd[i] = outageMin + ((outageRange == 0) ? 0 : random.nextLong(outageRange + 1));
			}
		}
		return new Scenario(start, skew, outageEnd);
	}

}

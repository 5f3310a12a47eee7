// The app's build ran the five scenarios twice, with the starter and without it; compare what the callers got.
def log = new File(basedir, 'build.log').text
assert !log.contains('retry-after-spring-boot-starter/@') : 'the version was not filtered'
def read = { side ->
    def file = new File(basedir, "target/matrix/${side}.tsv")
    assert file.isFile() : "no matrix from the run ${side} the starter"
    file.readLines().findAll { it.trim() }.collect { it.split('\t') }.collectEntries { r ->
        [(r[1] + ' ' + r[2]): [calls: r[3] as int, ok: r[4] as int, requests: r[5] as int, perCall: r[6] as int,
                               early: r[7] as int, types: (r[8] == '-') ? [] as Set : (r[8].split(',') as Set),
                               lastMs: r[9] as long, attempts: r[10] as long, waiting: r[11] as int]]
    }
}
def with = read('with')
def without = read('without')
assert with.size() == 20 : "expected 4 families x 5 scenarios with the starter, got ${with.keySet()}"
assert without.keySet() == with.keySet()
def maxAttempts = 4
def problems = []
println String.format('%-32s %-22s %-22s %s', 'family scenario', 'with: ok/calls req ms', 'without: ok/calls req ms', 'exceptions (with | without)')
with.keySet().sort().each { key ->
    def w = with[key]
    def o = without[key]
    println String.format('%-32s %3d/%-3d %4d %6d   %3d/%-3d %4d %6d%s   %s | %s', key, w.ok, w.calls, w.requests, w.lastMs,
            o.ok, o.calls, o.requests, o.lastMs, (o.waiting > 0) ? " (${o.waiting} still waiting)" : '', w.types.collect { it.tokenize('.').last() }, o.types.collect { it.tokenize('.').last() })
    if (w.ok < o.ok) problems << "${key}: ${w.ok} successes with the starter, ${o.ok} without"
    if (w.waiting > 0) problems << "${key}: ${w.waiting} calls still waiting with the starter"
    // a call without the starter that never ended (an hour's hint waited out) has no type to compare with
    if (o.waiting < o.calls && !o.types.containsAll(w.types)) problems << "${key}: the caller got ${w.types - o.types} with the starter, never without (${o.types})"
    if (w.perCall > maxAttempts) problems << "${key}: ${w.perCall} requests for one call, more than max-attempts ${maxAttempts}"
    if (w.early > 0) problems << "${key}: ${w.early} requests before the instant a refusal named"
    if (key.endsWith('refused-connection')) {
        if (w.attempts > maxAttempts * w.calls) problems << "${key}: ${w.attempts} attempts for ${w.calls} calls on a refused connection"
    }
    else if (w.attempts != w.requests) problems << "${key}: the starter counted ${w.attempts} attempts, the mock saw ${w.requests} requests"
}
assert problems.isEmpty() : problems.join('\n')
return true

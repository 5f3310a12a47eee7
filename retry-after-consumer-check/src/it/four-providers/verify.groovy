// The app's build passed; check that it really ran its checks (a build that runs no test passes too).
def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 7, Failures: 0, Errors: 0, Skipped: 0') : 'the four-provider checks and the wrong-group start did not all run'
assert !log.contains('retry-after-spring-boot-starter/@') : 'the version was not filtered'
['FourProvidersTests', 'WrongServiceGroupTests'].each { name ->
    def report = new File(basedir, "target/surefire-reports/TEST-com.example.providers.${name}.xml")
    assert report.isFile() : "no report of ${name}"
}
// the figures, for whoever reads the consumer check's log
log.readLines().findAll { it.startsWith('waits of ') || it.startsWith('window of ') || it.startsWith('retry_after_* lines') || it.startsWith('COOLDOWN events') || it.contains(' by family: ') }.each { println it }
return true

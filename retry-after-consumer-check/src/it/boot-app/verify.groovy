// The app's build passed; check that it really ran the retried call (a build that runs no test passes too).
def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 3, Failures: 0, Errors: 0, Skipped: 0') : 'the retried call, the two-host call and the fixed-clock call did not all run'
assert !log.contains('retry-after-spring-boot-starter/@') : 'the version was not filtered'
def report = new File(basedir, 'target/surefire-reports/TEST-com.example.consumer.RetriedCallTests.xml')
assert report.isFile() : 'no report of RetriedCallTests'
def fixtures = new File(basedir, 'target/surefire-reports/TEST-com.example.consumer.FixedClockTests.xml')
assert fixtures.isFile() : 'no report of FixedClockTests (the fixtures by coordinates)'
return true

# The two commands: `make run` (the end-to-end tour) and `make test` (every test).
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT ?= swift

.PHONY: run test bench bench-scale bench-migration bootstrap clean

bootstrap:
	@scripts/bootstrap

run: bootstrap
	$(SWIFT) build --product strata
	.build/debug/strata demo

test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest

bench: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataRatios
	cd Benchmarks && $(SWIFT) run -c release StrataObservation
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

bench-migration: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataMigration

bench-scale: bootstrap
	cd Benchmarks && $(SWIFT) run -c release StrataScale

clean:
	rm -rf .build Benchmarks/.build

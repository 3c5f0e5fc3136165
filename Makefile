# Thin wrappers: the scripts are what a fresh machine (without make) runs.
.PHONY: demo test bench
demo:
	./scripts/demo
test:
	./scripts/test
bench:
	./bench/store

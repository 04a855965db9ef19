import Strata
print("strata")

// `import StrataConformance` brings the fixture domains too (Person, Trip, …, TravelDomain): they
// and FaultInjectingRemote live in StrataFixtures, so that `strata demo` tours them without the suite.
@_exported import StrataFixtures

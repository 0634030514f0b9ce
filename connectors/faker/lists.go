package faker

import (
	_ "embed"
	"fmt"
	"strings"
)

// lists.txt holds the providers that are lists of names (Java Faker reads
// them from its YAML files): [provider.key] sections, one value a line.
//
//go:embed lists.txt
var listsText string

// listMethods are the Java Faker methods that return an element of a list,
// with the YAML key of the list. Java Faker resolves #{HarryPotter.character}
// by calling the method and #{harry_potter.characters} by reading the YAML
// key; both are accepted, in any case and with or without underscores.
var listMethods = map[string]string{
	"HarryPotter.character": "harry_potter.characters",
	"HarryPotter.location":  "harry_potter.locations",
	"HarryPotter.house":     "harry_potter.houses",
	"HarryPotter.book":      "harry_potter.books",
	"HarryPotter.spell":     "harry_potter.spells",
	"HarryPotter.quote":     "harry_potter.quotes",

	"RickAndMorty.character": "rick_and_morty.characters",
	"RickAndMorty.location":  "rick_and_morty.locations",
	"RickAndMorty.quote":     "rick_and_morty.quotes",

	"Superhero.name":       "superhero.name",
	"Superhero.prefix":     "superhero.prefix",
	"Superhero.suffix":     "superhero.suffix",
	"Superhero.descriptor": "superhero.descriptor",
	"Superhero.power":      "superhero.power",

	"Space.planet":              "space.planet",
	"Space.moon":                "space.moon",
	"Space.galaxy":              "space.galaxy",
	"Space.nebula":              "space.nebula",
	"Space.starCluster":         "space.star_cluster",
	"Space.constellation":       "space.constellation",
	"Space.star":                "space.star",
	"Space.agency":              "space.agency",
	"Space.agencyAbbreviation":  "space.agency_abv",
	"Space.nasaSpaceCraft":      "space.nasa_space_craft",
	"Space.company":             "space.company",
	"Space.distanceMeasurement": "space.distance_measurement",
	"Space.meteorite":           "space.meteorite",

	"DrWho.character":   "dr_who.character",
	"DrWho.theDoctor":   "dr_who.the_doctors",
	"DrWho.actor":       "dr_who.actors",
	"DrWho.catchPhrase": "dr_who.catch_phrases",
	"DrWho.quote":       "dr_who.quotes",
	"DrWho.villian":     "dr_who.villians",
	"DrWho.specie":      "dr_who.species",

	"HitchhikersGuideToTheGalaxy.character":   "hitchhikers_guide_to_the_galaxy.characters",
	"HitchhikersGuideToTheGalaxy.location":    "hitchhikers_guide_to_the_galaxy.locations",
	"HitchhikersGuideToTheGalaxy.planet":      "hitchhikers_guide_to_the_galaxy.planets",
	"HitchhikersGuideToTheGalaxy.specie":      "hitchhikers_guide_to_the_galaxy.species",
	"HitchhikersGuideToTheGalaxy.starship":    "hitchhikers_guide_to_the_galaxy.starships",
	"HitchhikersGuideToTheGalaxy.quote":       "hitchhikers_guide_to_the_galaxy.quotes",
	"HitchhikersGuideToTheGalaxy.marvinQuote": "hitchhikers_guide_to_the_galaxy.marvin_quote",
}

// parseLists reads lists.txt: YAML key -> values.
func parseLists(text string) (map[string][]string, error) {
	out := map[string][]string{}
	key := ""
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "#{"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			key = line[1 : len(line)-1]
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("lists.txt:%d: [%s] twice", n+1, key)
			}
			out[key] = nil
		case key == "":
			return nil, fmt.Errorf("lists.txt:%d: a value before the first [section]", n+1)
		default:
			out[key] = append(out[key], line)
		}
	}
	return out, nil
}

// registerLists makes a provider of every list, under its YAML key and its
// Java method. It runs after the other providers are registered: a value
// with #{...} in it (superhero.name's patterns) is an expression over them.
func registerLists() {
	lists, err := parseLists(listsText)
	if err != nil {
		panic(err) // the embedded file is ours; TestLists keeps it well formed
	}
	runs := map[string]func(*gen, []string) result{}
	type pattern struct {
		key   string
		vals  []string
		exprs []*Expr
	}
	var patterns []pattern
	for key, vals := range lists {
		if len(vals) == 0 {
			panic(fmt.Sprintf("lists.txt: [%s] is empty", key))
		}
		var exprs []*Expr
		if strings.Contains(strings.Join(vals, "\n"), "#{") {
			exprs = make([]*Expr, len(vals))
			patterns = append(patterns, pattern{key, vals, exprs})
		}
		runs[key] = func(g *gen, _ []string) result {
			i := g.r.IntN(len(vals))
			if exprs != nil {
				return exprs[i].eval(g)
			}
			return result{s: vals[i]}
		}
		reg(key, "", 0, 0, nil, runs[key])
	}
	for method, key := range listMethods {
		run, ok := runs[key]
		if !ok {
			panic(fmt.Sprintf("lists.txt has no [%s] for %s", key, method))
		}
		if normalize(method) != normalize(key) {
			reg(method, "", 0, 0, nil, run)
		}
	}
	// Patterns are parsed once every list is registered.
	for _, p := range patterns {
		for i, v := range p.vals {
			e, err := Parse(v)
			if err != nil {
				panic(fmt.Sprintf("lists.txt: [%s] %q: %v", p.key, v, err))
			}
			p.exprs[i] = e
		}
	}
}

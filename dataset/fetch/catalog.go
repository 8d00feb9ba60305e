package fetch

import (
	"fmt"
	"slices"
	"strings"
)

// Dataset is one name `parog data get` takes: the files it writes, where
// they come from and under which licence.
type Dataset struct {
	// Name is what the user types.
	Name string
	// Title says what it is, in a line.
	Title string
	// Licence is printed before the download starts.
	Licence string
	// Size states the download's size in words, printed before it starts.
	Size string
	// Use says what the data may be used for (test splits: evaluation only).
	Use string
	// Files are the downloads.
	Files []File
}

// File is one download.
type File struct {
	// URL is the canonical public source.
	URL string
	// Path is where it goes inside the data directory (slash-separated).
	Path string
	// SHA256 pins the bytes; empty means trust on first use (the lock file).
	SHA256 string
	// Extract lists the members of a zip archive to write as plain files.
	Extract []Member
}

// Member is a file inside a downloaded zip archive.
type Member struct {
	// Name is its path inside the archive.
	Name string
	// Path is where it goes inside the data directory.
	Path string
	// SHA256 pins its bytes; empty means trust on first use.
	SHA256 string
}

// Paths returns every path the dataset writes that a guide may name: the
// plain files and the archives' members (not the archives themselves).
func (d Dataset) Paths() []string {
	var out []string
	for _, f := range d.Files {
		if len(f.Extract) == 0 {
			out = append(out, f.Path)
			continue
		}
		for _, m := range f.Extract {
			out = append(out, m.Path)
		}
	}
	return out
}

// Sources of the files, by repository. The pins below are the sha256 of
// files taken unchanged from these repositories.
const (
	tog         = "https://raw.githubusercontent.com/IDEA-FinAI/ToG/HEAD/data/"
	pog         = "https://raw.githubusercontent.com/liyichen-cly/PoG/HEAD/"
	grailqaRepo = "https://raw.githubusercontent.com/dki-lab/GrailQA/HEAD/"
	fbTriples   = "https://raw.githubusercontent.com/nchah/freebase-triples/HEAD/"
)

// FreebaseDumpURL is the last official Freebase dump (2015-08-09).
const FreebaseDumpURL = "https://commondatastorage.googleapis.com/freebase-public/rdf/freebase-rdf-latest.gz"

// Catalog returns every dataset `parog data get` knows, in the order
// `parog data list` shows them.
func Catalog() []Dataset { return slices.Clone(catalog) }

// catalog is the table Catalog copies: data, not code.
var catalog = []Dataset{
	{
		Name:    "webqsp",
		Title:   "WebQuestionsSP (Yih et al., ACL 2016): train 3,098 and test 1,639 questions with gold SPARQL, from its public release",
		Licence: "CC BY 4.0 (Microsoft Research)",
		Size:    "a zip of a few MB; the two question files unpacked are about 16 MB",
		Use:     "train for training data; test for evaluation only",
		Files: []File{{
			URL:  "https://download.microsoft.com/download/F/5/0/F5012144-A4FB-4084-897F-CFDA99C60BDF/WebQSP.zip",
			Path: "webqsp/WebQSP.zip",
			Extract: []Member{
				{Name: "WebQSP/data/WebQSP.train.json", Path: "webqsp/WebQSP.train.json", SHA256: "a01f87fa7808d2e90ccdf758b8eefbb882f3f92a8f386058ad6fd153c1589ed0"},
				{Name: "WebQSP/data/WebQSP.test.json", Path: "webqsp/WebQSP.test.json"},
			},
		}},
	},
	{
		Name:    "cwq",
		Title:   "ComplexWebQuestions (Talmor and Berant, NAACL 2018), test split, 3,531 questions with gold SPARQL, as Plan-on-Graph distributes it",
		Licence: "CC BY-SA 4.0",
		Size:    "about 4 MB",
		Use:     "evaluation only (test split)",
		Files:   []File{{URL: pog + "data/cwq.json", Path: "cwq.json"}},
	},
	{
		Name:    "grailqa",
		Title:   "GrailQA (Gu et al., WWW 2021), 1,000 dev questions with gold SPARQL, as Plan-on-Graph distributes it",
		Licence: "CC BY-SA 4.0",
		Size:    "about 3 MB",
		Use:     "evaluation only (dev split)",
		Files:   []File{{URL: pog + "data/grailqa.json", Path: "grailqa.json"}},
	},
	{
		Name:    "simplequestions",
		Title:   "SimpleQuestions (Bordes et al., 2015), a 1,000-question test sample over Freebase, as Think-on-Graph distributes it",
		Licence: "CC BY 3.0",
		Size:    "0.2 MB",
		Use:     "evaluation only (test split)",
		Files:   []File{{URL: tog + "SimpleQA.json", Path: "tog/SimpleQA.json", SHA256: "c40ecdb9c17b30a2d39b469ffdf26e3fa4248e0013e578badb19541ddcaae3d1"}},
	},
	{
		Name:    "webquestions",
		Title:   "WebQuestions (Berant et al., EMNLP 2013), test split, 2,032 questions over Freebase, as Think-on-Graph distributes it",
		Licence: "CC BY 4.0",
		Size:    "0.8 MB",
		Use:     "evaluation only (test split)",
		Files:   []File{{URL: tog + "WebQuestions.json", Path: "tog/WebQuestions.json", SHA256: "129c8b0e8a8fe09944fcf84f4623d89d5ebdcf7e3b0db562258e126a3bc2b495"}},
	},
	{
		Name:    "qald10",
		Title:   "QALD-10 English (Usbeck et al., 2023), 333 questions over Wikidata, as Think-on-Graph distributes it",
		Licence: "MIT",
		Size:    "0.4 MB",
		Use:     "evaluation only (test split)",
		Files:   []File{{URL: tog + "qald_10-en.json", Path: "tog/qald_10-en.json", SHA256: "c75f4e7479c071285a427c17188bfd5457cc228e57ed5f4ec5430fe98ea22bdf"}},
	},
	{
		Name:    "fb15k237",
		Title:   "FB15k-237 (Toutanova and Chen, 2015): 310,116 real Freebase triples as the ConvE code distributes them, with names as SimKGC distributes them",
		Licence: "CC BY (derived from Freebase)",
		Size:    "4.1 MB",
		Files: []File{
			{URL: "https://raw.githubusercontent.com/TimDettmers/ConvE/HEAD/FB15k-237.tar.gz", Path: "fb15k237/FB15k-237.tar.gz", SHA256: "311df7930f842a02979eaa7a802484a6afe62303c07f915f1e6edbc30cbe05e8"},
			{URL: "https://raw.githubusercontent.com/intfloat/SimKGC/HEAD/data/FB15k237/FB15k_mid2name.txt", Path: "fb15k237/FB15k_mid2name.txt", SHA256: "4da94b8059a83bc7e08c832f573d34221d38e85030576e332a0d0e9726d13d73"},
		},
	},
	{
		Name:    "freebase-schema",
		Title:   "the real Freebase schema: GrailQA's ontology (properties with domain and range, type hierarchy, reverse properties) and freebase-triples' property type info and per-type instance counts",
		Licence: "GrailQA's files Apache-2.0, freebase-triples' BSD-2-Clause (each licence is fetched beside them); Freebase data CC BY",
		Size:    "6.7 MB",
		Files: []File{
			{URL: grailqaRepo + "ontology/fb_roles", Path: "freebase-schema/fb_roles", SHA256: "a418ab62ce2746ed91b72ec3e06563c32aa7bd4ea14364c4e47160d2af7f22f3"},
			{URL: grailqaRepo + "ontology/fb_types", Path: "freebase-schema/fb_types", SHA256: "d7ccacde076ddb2f71de450c5670e279ea0ad4e73d274d08af9e237c765fa8ea"},
			{URL: grailqaRepo + "ontology/reverse_properties", Path: "freebase-schema/reverse_properties", SHA256: "8c120e0f7ee074fa528f4732ede588597a9c3df767a59b7c8e02114ed39b35ac"},
			{URL: grailqaRepo + "LICENSE", Path: "freebase-schema/LICENSE.GrailQA-Apache-2.0"},
			{URL: fbTriples + "data/schema/fb-rdf-pred-schema-properties-ids-1-byalpha-typeinfo", Path: "freebase-schema/properties-typeinfo.nt", SHA256: "8f285af62565cc72b6bd8b57600b52e9766a3f2e989a7c9acab9ce9c0b45349c"},
			{URL: fbTriples + "data/types-unique-clean-counts.txt", Path: "freebase-schema/type-instance-counts.tsv", SHA256: "721e8653a0c9fdfc0130bc3143694f2b8ddd683b17c615a3393afc700d851986"},
			{URL: fbTriples + "LICENSE", Path: "freebase-schema/LICENSE.freebase-triples-BSD-2"},
		},
	},
	{
		Name:    "pog",
		Title:   "Plan-on-Graph's released results with GPT-3.5 on CWQ, WebQSP and GrailQA (Chen et al., NeurIPS 2024); score them against cwq, webqsp (test) and grailqa",
		Licence: "Apache-2.0 (Plan-on-Graph's code); the questions in them CC BY-SA 4.0 (CWQ, GrailQA) and CC BY 4.0 (WebQSP)",
		Size:    "6.3 MB",
		Use:     "evaluation only (test and dev splits)",
		Files: []File{
			{URL: pog + "results/PoG_cwq_gpt-3.5-turbo-0125.jsonl", Path: "pog/PoG_cwq_gpt-3.5-turbo-0125.jsonl", SHA256: "efd4d32436a92cc3e0fb3cf482683df4480b2174cb798928fecf756486b42032"},
			{URL: pog + "results/PoG_webqsp_gpt-3.5-turbo-0125.jsonl", Path: "pog/PoG_webqsp_gpt-3.5-turbo-0125.jsonl", SHA256: "c45988bb215b0d85a5059a2d880ad1d857c6fa855120e9cd449b65bb2e2cbc29"},
			{URL: pog + "results/PoG_grailqa_gpt-3.5-turbo-0125.jsonl", Path: "pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl", SHA256: "200be413dd7836e37a09e4ca015f58b393cb8ebdc04cc1c6ee1e4a6ab85f4afc"},
		},
	},
	{
		Name:    "freebase",
		Title:   "the full Freebase dump, freebase-rdf-latest.gz (the last official dump, 2015-08-09), listed as 1.9 billion triples",
		Licence: "CC BY 2.5 (Google, Freebase Data Dumps)",
		Size:    "about 30 GB gzipped (listed as 22 GB; 2015-08 downloads measure over 30 GB), about 400 GB unpacked; parog kg import freebase reads it gzipped",
		Files:   []File{{URL: FreebaseDumpURL, Path: "freebase/freebase-rdf-latest.gz"}},
	},
}

// Lookup returns the datasets of names, in the order given; "all" stands
// for every dataset but the full Freebase dump.
func Lookup(catalog []Dataset, names []string) ([]Dataset, error) {
	var out []Dataset
	for _, name := range names {
		if name == "all" {
			for _, d := range catalog {
				if d.Name != "freebase" {
					out = append(out, d)
				}
			}
			continue
		}
		i := slices.IndexFunc(catalog, func(d Dataset) bool { return d.Name == name })
		if i < 0 {
			known := make([]string, len(catalog))
			for j, d := range catalog {
				known[j] = d.Name
			}
			return nil, fmt.Errorf("fetch: unknown dataset %q (known: %s, all)", name, strings.Join(known, ", "))
		}
		out = append(out, catalog[i])
	}
	return out, nil
}

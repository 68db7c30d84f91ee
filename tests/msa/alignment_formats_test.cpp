// The alignment writers on small pieces of hmmer-examples' alignments (MADE1, DNA, names past 30 characters and
// rows ending in gaps; globins4, protein), against the files clustalw 2.1 wrote for them (-CONVERT), so that the
// formats are checked where clustalw itself is not installed (msa_formats_vs_clustalw covers far more).
#include <catch2/catch.hpp>

#include <string>

#include "cudp/msa/alignment_formats.hpp"
#include "cudp/msa/clustal_sequences.hpp"

namespace {

using namespace cudp::msa;

MultipleAlignment in_file_order(const ClustalSequences& records) {
  MultipleAlignment alignment;
  alignment.rows = records.residues;
  for (std::size_t s = 0; s < records.size(); ++s) alignment.order.push_back(static_cast<int>(s));
  return alignment;
}

const char* const made1 = R"(>H.sapiens_6.1/113836283-113836209
TTAGATTGATGCAAAAGTAATTGC---T-G---T-TTT-T-------------------------------G---
>H.sapiens_20.1/19570829-19570750
TTAGGTTGGTGCAAAAGTAATTGC---G-G---T-TTT-T-------------------------------G---
>H.sapiens_X.1/131791847-131791768
TTAGGTTGGTGCAAAAGTAATTGC---A-G---T-TTT-T-------------------------------G---
)";
const char* const globins4 = R"(>HBB_HUMAN
--------VHLTPEEKSAVTALWGKV----NVDEVGGEALGRLLVVYPWTQRFFESFGDLSTPD
>HBA_HUMAN
---------VLSPADKTNVKAAWGKVGA--HAGEYGAEALERMFLSFPTTKTYFPHF-DLS---
>MYG_PHYCA
---------VLSEGEWQLVLHVWAKVEA--DVAGHGQDILIRLFKSHPETLEKFDRFKHLKTEA
)";
const char* const made1_clustal = R"(CLUSTAL 2.1 multiple sequence alignment


H.sapiens_6.1/113836283-113836      TTAGATTGATGCAAAAGTAATTGC---T-G---T-TTT-T----------
H.sapiens_20.1/19570829-195707      TTAGGTTGGTGCAAAAGTAATTGC---G-G---T-TTT-T----------
H.sapiens_X.1/131791847-131791      TTAGGTTGGTGCAAAAGTAATTGC---A-G---T-TTT-T----------
                                    **** *** ***************     *   * *** *          

H.sapiens_6.1/113836283-113836      ---------------------G---
H.sapiens_20.1/19570829-195707      ---------------------G---
H.sapiens_X.1/131791847-131791      ---------------------G---
                                                         *   
)";
const char* const made1_gcg = R"(PileUp



   MSF:   75  Type: N    Check:  2050   .. 

 Name: H.sapiens_6.1/113836283-113836209 oo  Len:   75  Check:   926  Weight:  10.0
 Name: H.sapiens_20.1/19570829-19570750 oo  Len:   75  Check:   646  Weight:  10.0
 Name: H.sapiens_X.1/131791847-131791768 oo  Len:   75  Check:   478  Weight:  10.0

//



H.sapiens_6.1/113836283-113836209      TTAGATTGAT GCAAAAGTAA TTGC...T.G ...T.TTT.T .......... 
H.sapiens_20.1/19570829-19570750       TTAGGTTGGT GCAAAAGTAA TTGC...G.G ...T.TTT.T .......... 
H.sapiens_X.1/131791847-131791768      TTAGGTTGGT GCAAAAGTAA TTGC...A.G ...T.TTT.T .......... 


H.sapiens_6.1/113836283-113836209      .......... .......... .G...
H.sapiens_20.1/19570829-19570750       .......... .......... .G...
H.sapiens_X.1/131791847-131791768      .......... .......... .G...

)";
const char* const made1_gde = R"(#H.sapiens_6.1/113836283-113836209
ttagattgatgcaaaagtaattgc---t-g---t-ttt-t
-------------------------------g---
#H.sapiens_20.1/19570829-19570750
ttaggttggtgcaaaagtaattgc---g-g---t-ttt-t
-------------------------------g---
#H.sapiens_X.1/131791847-131791768
ttaggttggtgcaaaagtaattgc---a-g---t-ttt-t
-------------------------------g---
)";
const char* const made1_pir = R"(>DL;H.sapiens_6.1/113836283-113836209

TTAGATTGATGCAAAAGTAATTGC---T-G---T-TTT-T
-------------------------------G---
*
>DL;H.sapiens_20.1/19570829-19570750

TTAGGTTGGTGCAAAAGTAATTGC---G-G---T-TTT-T
-------------------------------G---
*
>DL;H.sapiens_X.1/131791847-131791768

TTAGGTTGGTGCAAAAGTAATTGC---A-G---T-TTT-T
-------------------------------G---
*
)";
const char* const made1_phylip = R"(     3     75
H.sapiens_ TTAGATTGAT GCAAAAGTAA TTGC---T-G ---T-TTT-T ---------- 
H.sapiens_ TTAGGTTGGT GCAAAAGTAA TTGC---G-G ---T-TTT-T ---------- 
H.sapiens_ TTAGGTTGGT GCAAAAGTAA TTGC---A-G ---T-TTT-T ---------- 

           ---------- ---------- -G---
           ---------- ---------- -G---
           ---------- ---------- -G---
)";
const char* const made1_nexus = R"(#NEXUS
BEGIN DATA;
dimensions ntax=3 nchar=75;
format missing=?
interleave datatype=DNA gap= -;

matrix
H.sapiens_6.1/113836283-113836209  TTAGATTGATGCAAAAGTAATTGC---T-G---T-TTT-T----------
H.sapiens_20.1/19570829-19570750   TTAGGTTGGTGCAAAAGTAATTGC---G-G---T-TTT-T----------
H.sapiens_X.1/131791847-131791768  TTAGGTTGGTGCAAAAGTAATTGC---A-G---T-TTT-T----------

H.sapiens_6.1/113836283-113836209  ---------------------G---
H.sapiens_20.1/19570829-19570750   ---------------------G---
H.sapiens_X.1/131791847-131791768  ---------------------G---
;
end;
)";
const char* const made1_fasta = R"(>H.sapiens_6.1
TTAGATTGATGCAAAAGTAATTGC---T-G---T-TTT-T
-------------------------------G---
>H.sapiens_20.1
TTAGGTTGGTGCAAAAGTAATTGC---G-G---T-TTT-T
-------------------------------G---
>H.sapiens_X.1
TTAGGTTGGTGCAAAAGTAATTGC---A-G---T-TTT-T
-------------------------------G---
)";
const char* const globins4_gcg_ranges = R"(PileUp



   MSF:   60  Type: P    Check:  1617   .. 

 Name: HBB_HUMAN oo  Len:   56  Check:  1890  Weight:  10.0
 Name: HBA_HUMAN oo  Len:   56  Check:  9452  Weight:  10.0
 Name: MYG_PHYCA oo  Len:   56  Check:   275  Weight:  10.0

//



HBB_HUMAN/1-52           ....VHLTPE EKSAVTALWG KV....NVDE VGGEALGRLL VVYPWTQRFF 
HBA_HUMAN/1-49           .....VLSPA DKTNVKAAWG KVGA..HAGE YGAEALERMF LSFPTTKTYF 
MYG_PHYCA/1-53           .....VLSEG EWQLVLHVWA KVEA..DVAG HGQDILIRLF KSHPETLEKF 


HBB_HUMAN/1-52           ESFGDL
HBA_HUMAN/1-49           PHF.DL
MYG_PHYCA/1-53           DRFKHL

)";
const char* const globins4_clustal_numbers = R"(CLUSTAL 2.1 multiple sequence alignment


HBB_HUMAN       ----VHLTPEEKSAVTALWGKV----NVDEVGGEALGRLLVVYPWTQRFFESFGDL 52
HBA_HUMAN       -----VLSPADKTNVKAAWGKVGA--HAGEYGAEALERMFLSFPTTKTYFPHF-DL 52
MYG_PHYCA       -----VLSEGEWQLVLHVWAKVEA--DVAGHGQDILIRLFKSHPETLEKFDRFKHL 53
                      *:  :   *   *.**    ..   * : * *::  .* *   *  * .*
)";
const char* const globins4_gde_upper_ranges = R"(%HBB_HUMAN/1-52
--------VHLTPEEKSAVTALWGKV----NVDEVGGEALGRLLVVYPWTQRFFESFGDL
STPD
%HBA_HUMAN/1-49
---------VLSPADKTNVKAAWGKVGA--HAGEYGAEALERMFLSFPTTKTYFPHF-DL
S---
%MYG_PHYCA/1-53
---------VLSEGEWQLVLHVWAKVEA--DVAGHGQDILIRLFKSHPETLEKFDRFKHL
KTEA
)";

}  // namespace

TEST_CASE("every alignment format as clustalw -CONVERT writes it (DNA, long names, end gaps)", "[msa]") {
  const ClustalSequences records = parse_clustal_fasta(made1, "made1");
  REQUIRE(records.dna);
  const MultipleAlignment alignment = in_file_order(records);
  AlignmentOutputOptions options;
  options.dna = true;
  CHECK(alignment_text(AlignmentFormat::clustal, records.names, alignment, options) == made1_clustal);
  CHECK(alignment_text(AlignmentFormat::gcg, records.names, alignment, options) == made1_gcg);
  CHECK(alignment_text(AlignmentFormat::gde, records.names, alignment, options) == made1_gde);
  CHECK(alignment_text(AlignmentFormat::pir, records.names, alignment, options) == made1_pir);
  CHECK(alignment_text(AlignmentFormat::phylip, records.names, alignment, options) == made1_phylip);
  CHECK(alignment_text(AlignmentFormat::nexus, records.names, alignment, options) == made1_nexus);
  CHECK(alignment_text(AlignmentFormat::fasta, records.names, alignment, options) == made1_fasta);
}

TEST_CASE("the output options: -RANGE, -SEQNO_RANGE, -SEQNOS and -CASE (protein)", "[msa]") {
  const ClustalSequences records = parse_clustal_fasta(globins4, "globins4");
  REQUIRE_FALSE(records.dna);
  const MultipleAlignment alignment = in_file_order(records);
  AlignmentOutputOptions options;
  options.range_from = 5;
  options.range_to = 60;
  options.sequence_ranges = true;
  CHECK(gcg_msf_text(records.names, alignment, options) == globins4_gcg_ranges);
  options.sequence_ranges = false;
  options.sequence_numbers = true;
  CHECK(clustal_aln_text(records.names, alignment, options) == globins4_clustal_numbers);
  AlignmentOutputOptions upper;
  upper.lower_case = false;
  upper.sequence_ranges = true;
  CHECK(gde_text(records.names, alignment, upper) == globins4_gde_upper_ranges);
}

TEST_CASE("-OUTPUT= values are read as clustalw reads them", "[msa]") {
  CHECK(alignment_format_from_name("GCG") == AlignmentFormat::gcg);
  CHECK(alignment_format_from_name("ph") == AlignmentFormat::phylip);
  CHECK(alignment_format_from_name("Fasta") == AlignmentFormat::fasta);
  CHECK(alignment_format_from_name("pe") == AlignmentFormat::nexus);  // clustalw compares each letter on its own
  CHECK_THROWS(alignment_format_from_name("p"));
  CHECK_THROWS(alignment_format_from_name("xml"));
}

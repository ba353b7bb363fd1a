"""Word lists behind singularisation (private; see :func:`langmemcore.text.tokens.singularize`).

The exceptions to the plural rules, kept apart from the general word lists of
:mod:`langmemcore.text._lexicon` and built the same way.
"""

from __future__ import annotations

from langmemcore.text._lexicon import word_set

# Place and proper names ending in "s" that singularisation must leave alone.
S_FINAL_NAMES = word_set(
    """paris athens wales texas dallas vegas angeles netherlands philippines bahamas
    maldives seychelles brussels honduras barbados cyprus mauritius illinois kansas
    arkansas massachusetts memphis louis moines lagos aires americas indies andes alps
    rockies james charles thomas nicholas douglas chris dennis lewis davis travis francis
    curtis doris lois alexis phyllis otis elvis jarvis mavis morris harris willis ellis
    jones williams adams evans collins roberts hughes brooks myers hayes sanders jenkins
    simmons reyes torres flores agnes frances carlos luis jesus marcus"""
)

MEN_COMPOUNDS = word_set(
    """firemen policemen businessmen businesswomen fishermen gentlemen sportsmen craftsmen
    salesmen chairmen spokesmen freshmen snowmen cavemen congressmen repairmen policewomen
    sportswomen"""
)

INVARIANT = word_set(
    """news series species diabetes herpes rabies scabies measles mumps shingles clothes feces
    sweepstakes headquarters crossroads whereabouts means odds pants jeans shorts leggings
    tights trousers scissors binoculars thanks congrats regards outskirts premises belongings
    surroundings savings earnings gas canvas atlas christmas alias bias pancreas whereas
    overseas chaos kudos ethos pathos cosmos thermos tennis iris penis pelvis chassis trellis
    debris clematis mantis metropolis does goes this his always perhaps sometimes besides
    afterwards towards upwards downwards backwards nowadays lens yes"""
)

ES_STEMS = word_set(
    """bus gas bonus virus campus status chorus circus genius focus cactus octopus walrus lotus
    census corpus syllabus apparatus prospectus fetus sinus surplus plus minus thesaurus hiatus
    consensus fungus hippopotamus platypus abacus asparagus canvas atlas alias bias iris"""
)

IE_NOUNS = word_set(
    """movie cookie pie tie lie die brownie selfie zombie smoothie veggie rookie calorie hippie
    auntie genie prairie hoodie goalie newbie freebie birdie foodie lingerie roomie techie
    indie yuppie cutie sweetie barbie junkie groupie pixie collie budgie magpie bookie quickie
    nightie beanie bowtie boogie aussie eerie belgie oldie goodie hottie bestie specie"""
)

OES_KEEP_E = word_set("""shoes toes canoes hoes oboes foes floes tiptoes mistletoes sloes roes""")

ICS_FIELDS = word_set(
    """politics physics mathematics economics athletics gymnastics ethics aerobics acoustics
    genetics linguistics logistics statistics electronics mechanics robotics analytics
    aesthetics dynamics semantics phonetics optics ceramics olympics"""
)

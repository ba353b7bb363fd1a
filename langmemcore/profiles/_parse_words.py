"""Word classes of the parse extractor (`profiles._parse_rules`): English lemma classes.

Each class is a set of lemmas (spaCy's ``token.lemma_``, lower case) that plays one part in
a profile statement: a verb that states where someone lives, a noun that names a pet, a
word that marks a clause as not a plain statement. They are general English, not the
phrasings of a test set.
"""

from __future__ import annotations

FIRST_PERSON = frozenset({"i", "we"})
"""Subjects that stand for the speaker."""

REPORTING = frozenset(
    {
        "say", "tell", "think", "hear", "claim", "mention", "guess", "suppose", "believe",
        "read", "ask",
    }
)  # fmt: skip
"""Verbs whose clausal complement is reported, not stated, speech."""

WISHING = frozenset({"wish", "hope", "want", "dream", "would", "wonder", "imagine", "consider"})
"""Verbs whose complement is a wish or a thought, not a fact."""

NOT_FACT_MARKS = frozenset({"if", "unless", "whether", "once", "until", "before"})
"""Subordinators that make their clause a condition or a not-yet event."""

NOT_FACT_AUX = frozenset({"would", "could", "might", "should", "may", "must", "'d", "will", "'ll"})
"""Modal auxiliaries: a clause with one states no present fact."""

ENDING_VERBS = frozenset({"leave", "quit", "stop", "give", "finish", "cancel"})
"""Verbs whose complement ended: what they govern is not current ("I left teaching")."""

PLAN_VERBS = frozenset({"plan", "intend", "aim", "prepare", "decide"})
"""Verbs whose infinitive complement is a stated plan ("I'm planning to move")."""

FUTURE_TIME = frozenset({"tomorrow", "soon", "next", "upcoming", "later"})
"""Words that put a progressive ("I'm moving to Leeds next month") in the future."""

TIME_NOUNS = frozenset(
    {
        "year", "month", "week", "weekend", "day", "night", "morning", "evening", "summer",
        "spring", "autumn", "fall", "winter", "christmas", "easter", "holiday", "holidays",
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december", "monday", "tuesday", "wednesday",
        "thursday", "friday", "saturday", "sunday", "today", "tomorrow", "tonight", "time",
        "semester", "term", "moment", "while", "ago",
    }
)  # fmt: skip
"""Nouns that make a phrase a time modifier, dropped from values ("in August")."""

SUBJECTIVE = frozenset(
    {
        "new", "old", "little", "big", "small", "tiny", "huge", "cute", "lovely", "beautiful",
        "nice", "great", "amazing", "awesome", "favourite", "favorite", "sweet", "grumpy",
        "adorable", "own", "first", "former", "current", "beat", "up", "beat-up", "sad",
        "real", "whole", "local", "fancy", "cheap", "second", "hand", "second-hand", "used",
        "lazy", "crazy", "wonderful", "perfect", "good", "bad", "best", "fluffy", "tabby",
        "die", "hard", "die-hard", "massive", "absolute", "total", "proper", "fully", "more",
    }
)  # fmt: skip
"""Evaluative, size and age modifiers dropped from the front of a value."""

HOME_VERBS = frozenset({"live", "rent", "settle", "reside", "base", "relocate", "move"})
"""Verbs stating where someone lives (with "in" / "to")."""

WORK_LEAVE = frozenset({"quit", "leave", "resign", "retire"})
"""Verbs ending a job."""

JOB_NOUNS = frozenset({"job", "position", "role", "post", "internship", "gig", "career"})
"""Nouns naming a job."""

JOB_GET = frozenset({"get", "start", "land", "take", "find", "accept", "begin", "have"})
"""Verbs that take up a job ("I got a job at ...")."""

SCHOOL_VERBS = frozenset({"study", "enrol", "enroll", "attend", "transfer"})
"""Verbs stating where someone studies."""

PARTNER_START = frozenset({"marry", "date", "wed"})
"""Verbs whose object becomes the subject's partner."""

PARTNER_END = frozenset({"divorce", "separate", "dump"})
"""Verbs ending a relationship (also "break up", "split up", "call it off")."""

ANIMALS = frozenset(
    {
        "dog", "puppy", "cat", "kitten", "rabbit", "bunny", "hamster", "parrot", "bird",
        "budgie", "fish", "goldfish", "turtle", "tortoise", "snake", "lizard", "gecko", "horse",
        "pony", "guinea", "pig", "ferret", "mouse", "rat", "chicken", "retriever", "labrador",
        "poodle", "terrier", "beagle", "spaniel", "husky", "collie", "shepherd", "dachshund",
        "pug", "corgi", "mutt", "chihuahua", "bulldog", "greyhound", "whippet", "cockatoo",
    }
)  # fmt: skip
"""Nouns naming a pet animal."""

PET_GET = frozenset({"adopt", "get", "have", "rescue", "foster", "take"})
"""Verbs that make an animal the subject's pet."""

VEHICLES = frozenset(
    {
        "car", "bike", "bicycle", "motorbike", "motorcycle", "scooter", "van", "minivan",
        "truck", "suv", "jeep", "pickup", "e-bike", "ebike", "hatchback", "sedan", "camper",
        "moped", "convertible", "tesla", "toyota", "honda", "subaru", "ford", "volkswagen",
        "vw", "bmw", "audi", "mercedes", "volvo", "nissan", "mazda", "kia", "hyundai",
        "fiat", "peugeot", "renault", "skoda", "prius", "civic", "corolla", "vespa",
        "tractor", "lorry", "campervan", "motorhome", "caravan",
    }
)  # fmt: skip
"""Nouns naming a vehicle (kinds and common makes)."""

VEHICLE_HAVE = frozenset({"drive", "ride", "own", "buy", "get", "lease", "have"})
"""Verbs that make a vehicle the subject's."""

OWN_END = frozenset({"sell", "trade", "scrap", "crash", "total", "lose"})
"""Verbs ending a possession or vehicle."""

PROPERTY = frozenset({"house", "flat", "apartment", "condo", "cottage", "cabin", "home"})
"""Nouns naming a property someone owns."""

LIKE = frozenset({"love", "like", "enjoy", "adore"})
"""Verbs of liking."""

DISLIKE = frozenset({"hate", "dislike", "detest", "loathe", "despise"})
"""Verbs of disliking (also "can't stand")."""

DIETS = frozenset(
    {"vegan", "vegetarian", "pescatarian", "keto", "paleo", "gluten-free", "dairy-free"}
)
"""Adjectives naming a diet."""

FOODS = frozenset({"meat", "fish", "dairy", "pork", "beef", "gluten", "sugar", "alcohol"})
"""Foods whose avoidance is a diet ("I don't eat meat" -> "no meat")."""

HEALTH = frozenset({"allergic", "intolerant", "diabetic", "asthmatic", "pregnant"})
"""Adjectives stating a health condition."""

HOBBY_GERUNDS = {
    "run": "running", "swim": "swimming", "sing": "singing", "dance": "dancing",
    "paint": "painting", "draw": "drawing", "knit": "knitting", "climb": "climbing",
    "hike": "hiking", "cycle": "cycling", "surf": "surfing", "ski": "skiing",
    "skate": "skating", "bake": "baking", "garden": "gardening", "sew": "sewing",
    "jog": "jogging", "row": "rowing", "fish": "fishing", "box": "boxing",
}  # fmt: skip
"""Intransitive hobby verbs and the gerund that names the hobby ("I run" -> "running")."""

HOBBY_TAKE = frozenset({"take", "pick"})
"""Verbs that with the particle "up" start a hobby ("I took up pottery")."""

PLAYABLE = frozenset(
    {
        "football", "soccer", "tennis", "badminton", "squash", "golf", "basketball",
        "volleyball", "rugby", "cricket", "hockey", "baseball", "chess", "poker", "padel",
        "guitar", "piano", "bass", "drums", "violin", "cello", "keys", "keyboard", "ukulele",
        "saxophone", "sax", "flute", "trumpet", "harp", "banjo", "clarinet", "mandolin",
        "accordion", "harmonica", "trombone", "oboe", "synth", "bagpipes",
    }
)  # fmt: skip
"""Sports, games and instruments a person plays as a hobby."""

GROUPS = {
    "band": "band", "gym": "gym", "orchestra": "band", "choir": "band", "trio": "band",
    "quartet": "band", "ensemble": "band",
}  # fmt: skip
"""Nouns naming a group one belongs to, and its aspect."""

FAN_NOUNS = frozenset({"fan", "supporter"})
"""Nouns whose named complement is the team someone supports ("a Lakers fan")."""

NAMING = frozenset({"call", "name"})
"""Participles that give a name ("a band called X", "a dog named Y")."""

ACTIVITIES = frozenset(
    {
        "yoga", "pilates", "karate", "judo", "taekwondo", "ballet", "pottery", "photography",
        "crossfit", "boxing", "gymnastics", "archery", "parkour", "meditation", "bouldering",
        "climbing", "running", "swimming", "cycling", "hiking", "knitting", "painting",
        "gardening", "baking", "surfing", "skiing", "snowboarding", "salsa", "tango",
    }
)  # fmt: skip
"""Activities a person does as a hobby ("I do yoga", "I took up pottery")."""

ROLES = frozenset(
    {
        "nurse", "chef", "cook", "pilot", "clerk", "barista", "architect", "surgeon", "nanny",
        "midwife", "vet", "coach", "tutor", "paramedic", "pharmacist", "firefighter", "cop",
        "accountant", "consultant", "attorney", "intern", "engineer", "analyst", "doctor",
        "developer", "designer", "programmer", "teacher", "lawyer", "librarian", "dentist",
        "therapist", "scientist", "journalist", "electrician", "plumber", "mechanic",
        "manager", "director", "researcher", "professor", "lecturer", "waiter", "waitress",
        "baker", "carpenter", "translator", "photographer", "writer", "editor", "officer",
        "radiographer", "physiotherapist", "physio", "paralegal", "receptionist", "cashier",
        "driver", "cleaner", "caretaker", "hairdresser", "butcher", "builder", "surveyor",
        "solicitor", "optician", "carer", "technician", "administrator", "recruiter",
        "marketer", "economist", "biologist", "chemist", "physicist", "psychologist",
        "counsellor", "counselor", "postman", "courier", "bartender", "server",
        "sommelier", "florist", "tailor", "welder", "roofer", "painter", "animator",
        "illustrator", "musician", "actor", "actress", "dancer", "curator", "archivist",
    }
)  # fmt: skip
"""Nouns naming an occupation ("I'm a nurse", "became a software developer")."""

DEGREES = frozenset(
    {"degree", "master", "masters", "master's", "phd", "mba", "diploma", "bachelor", "course"}
)
"""Nouns naming a course of study ("I'm doing a master's at Leeds")."""

MOTION = frozenset({"ride", "cycle", "zip", "commute", "go", "get", "travel", "drive", "bike"})
"""Verbs of getting about; "on" / "by" a vehicle names the subject's vehicle."""

CHEER = frozenset({"root", "cheer"})
"""Verbs that with "for" name the team someone supports."""

DROP = frozenset({"drop", "cancel", "abandon", "scrap", "shelve"})
"""Verbs that give up a plan or end a membership."""

WORKPLACES = frozenset(
    {
        "bank", "hospital", "clinic", "firm", "company", "office", "school", "academy",
        "agency", "council", "charity", "startup", "studio", "restaurant", "cafe", "bakery",
        "shop", "store", "factory", "warehouse", "lab", "practice", "university", "college",
        "library", "hotel", "newspaper", "magazine", "ministry", "department", "museum",
        "gallery", "salon", "garage", "pharmacy", "surgery", "nursery",
    }
)  # fmt: skip
"""Nouns naming a place of work: leaving one ends a job ("I left the bank")."""

DWELLINGS = PROPERTY | frozenset(
    {"place", "studio", "houseshare", "bedsit", "loft", "bungalow", "townhouse", "room"}
)
"""Nouns naming where someone lives ("our new place in Vancouver")."""

KIN = frozenset(
    {
        "son", "daughter", "brother", "sister", "mother", "father", "mom", "mum", "dad",
        "nephew", "niece", "cousin", "aunt", "uncle", "grandson", "granddaughter", "grandma",
        "grandpa", "grandmother", "grandfather", "kid", "child", "baby", "stepson",
        "stepdaughter",
    }
)  # fmt: skip
"""Nouns naming a relative ("my nephew's called Zain")."""

WORK_STATES = frozenset({"freelance", "self-employed", "part-time", "full-time", "solo"})
"""Adjectives a person "goes" in their work ("I went freelance")."""

DEATH = frozenset({"die", "pass", "run"})
"""Verbs that, said of a named pet, end it ("Biscuit died", "passed away", "ran away")."""

CONTINUING = frozenset({"still", "now", "anymore", "longer", "though", "instead"})
"""Words that mark a verbless fragment as a statement about the speaker ("Still a
radiographer", "Vegetarian, though", "So no longer pescatarian").
"""

NOT_PLANNED = frozenset(
    {"miss", "need", "have", "be", "love", "like", "hate", "regret", "happen", "cry", "die"}
)
"""Verbs whose "going to" is a prediction, not a plan ("I'm going to miss the bagels")."""

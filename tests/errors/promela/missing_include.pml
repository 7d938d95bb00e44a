#include "nowhere.h"
active proctype P() { skip }

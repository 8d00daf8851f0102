#!/usr/bin/env bash
# placeholder: replaced by the fuzz target's owner
exit 77
